/**
 * `logs --agent` of a task with many transcripts (a long run writes one per agent turn): printed
 * in name order with at most a few files open at once, so a 20,000-stage task's log does not run
 * out of file descriptors.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CLI, demoProject } from "../helpers/cli.js";

const FILES = 400;
/** Enough for Node, the store and a few files; far fewer than FILES. */
const FD_LIMIT = 48;

describe("logs --agent", () => {
  it("prints every transcript in name order under a file limit far below their number", () => {
    const p = demoProject();
    expect(p.cli("add", "a long task").code).toBe(0);
    const dir = join(p.repo, ".fixpoint", "transcripts", "t-1");
    mkdirSync(dir, { recursive: true });
    const names = Array.from({ length: FILES }, (_, i) => `r1-s${String(i).padStart(4, "0")}-c0-v1-a1.log`);
    for (const [i, name] of names.entries()) writeFileSync(join(dir, name), `## prompt\nturn ${i}\n`);

    const r = spawnSync(
      "sh",
      ["-c", `ulimit -n ${FD_LIMIT} && exec "$0" "$@"`, process.execPath, CLI, "logs", "t-1", "--agent"],
      {
        cwd: p.repo,
        env: p.env,
        encoding: "utf8",
        timeout: 60_000,
      },
    );
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const printed = [...r.stdout.matchAll(/^===== (\S+)\n## prompt\nturn (\d+)$/gm)];
    expect(printed.map((m) => m[1])).toEqual(names);
    expect(printed.map((m) => Number(m[2]))).toEqual(names.map((_, i) => i));
  });
});
