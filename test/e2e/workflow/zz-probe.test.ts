import { writeFileSync } from "node:fs";
import { it } from "vitest";
import { CLI_CASES } from "../cli-cases.js";
import { binPath } from "../cli-install.js";
import { isolatedEnv, recordingRunner, request, tempDir, tempRepo } from "../e2e-helpers.js";
import { startFakeModel } from "../fake-model/server.js";

it("probe", async () => {
  const fake = await startFakeModel({ rules: [], fallback: { text: "ok" } });
  for (const c of CLI_CASES) {
    const home = tempDir(`${c.name}-probe`);
    const b = c.backend(binPath(c.name), { runner: recordingRunner(), baseEnv: isolatedEnv(home) });
    const repo = tempRepo();
    const from = fake.requests.length;
    const r = await b.run(request(repo, "PROBE hello", { env: c.env(fake.url, home), extraArgs: c.extraArgs(fake.url) }));
    const convs = fake.requests.slice(from).map((q) => q.conversation);
    writeFileSync(`/tmp/probe/${c.name}.json`, JSON.stringify({ repo, r, convs }, null, 1));
  }
  await fake.close();
}, 300_000);
