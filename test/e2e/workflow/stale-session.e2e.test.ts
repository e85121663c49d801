import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectStaleSession, STALE_SESSION } from "../../../src/app/backends.js";
import { CLI_CASES, type CliCase } from "../cli-cases.js";
import { isolatedEnv, recordingRunner, request, tempDir, tempRepo } from "../e2e-helpers.js";
import { type FakeModel, startFakeModel } from "../fake-model/server.js";
import { clis, warmUp } from "./clis.js";

/**
 * Each real CLI asked to resume a session id it has never seen: the wrapped backend reports
 * `session_not_found` (what makes the engine start a fresh session), and no model is called.
 */

let fake: FakeModel;

beforeAll(async () => {
  await warmUp();
  fake = await startFakeModel({ rules: [], fallback: { text: "ok" } });
}, 30 * 60_000);

afterAll(async () => {
  await fake?.close();
});

const BOGUS = "0badc0de-1111-4222-8333-444455556666";

describe.each(CLI_CASES)("$name asked to resume an unknown session", (c: CliCase) => {
  it("fails with session_not_found, naming the session", { timeout: 120_000 }, async () => {
    const bin = (await clis())[c.name];
    const home = tempDir(`${c.name}-stale`);
    const words = STALE_SESSION[c.name] ?? /$^/;
    const backend = detectStaleSession(
      c.backend(bin, { runner: recordingRunner(), baseEnv: isolatedEnv(home) }),
      words,
    );
    const from = fake.requests.length;
    const result = await backend.run(
      request(tempRepo(), "continue please", {
        sessionId: BOGUS,
        env: c.env(fake.url, home),
        extraArgs: c.extraArgs(fake.url),
        transcriptPath: join(home, "stale.log"),
      }),
    );
    expect(result.ok).toBe(false);
    expect(result.failure?.kind).toBe("session_not_found");
    expect(result.failure?.message).toMatch(new RegExp(`^session ${BOGUS} could not be resumed: .*${BOGUS}`));
    expect(result.sessionId).toBeUndefined();
    expect(fake.requests.length).toBe(from);
  });
});
