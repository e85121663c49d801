import type { Command } from "commander";
import { hasFailure, renderChecklist } from "../../app/doctor/check.js";
import { doctor } from "../../app/doctor/run.js";
import { FixpointError } from "../../errors.js";
import { parseDuration } from "../../util/duration.js";
import { type Io, printJson } from "../io.js";

interface DoctorOptions {
  offline?: boolean;
  timeout: string;
  json?: boolean;
}

export function registerDoctor(program: Command, io: Io, exit: { code: number }): void {
  program
    .command("doctor")
    .description("check git, the store, the config and every configured agent; say what to fix")
    .option("--offline", "do not send the one-token round trip to each agent")
    .option("--timeout <duration>", "how long each round trip may take", "60s")
    .option("--json", "print the checks as JSON")
    .action(async (opts: DoctorOptions) => {
      const timeoutMs = parseDuration(opts.timeout);
      if (timeoutMs === null || timeoutMs <= 0)
        throw new FixpointError("usage", `--timeout: not a duration: ${opts.timeout} (e.g. 30s, 2m)`);
      const checks = await doctor({ cwd: io.cwd, env: io.env, offline: Boolean(opts.offline), timeoutMs });
      if (opts.json) printJson(io, { ok: !hasFailure(checks), checks });
      else io.out(renderChecklist(checks));
      // Something fixpoint needs is broken: an environment error (SPEC §4).
      if (hasFailure(checks)) exit.code = 3;
    });
}
