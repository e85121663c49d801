import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentBackend } from "../../src/domain/agent.js";
import { backendScript, REVIEW, REVIEW_SCHEMA } from "./backend-script.js";
import { CLI_CASES, type CliCase } from "./cli-cases.js";
import { installClis } from "./cli-install.js";
import { groupAlive, isolatedEnv, recordingRunner, request, tempDir, tempRepo } from "./e2e-helpers.js";
import { wireUsage } from "./fake-model/script.js";
import { type FakeModel, startFakeModel, type Usage } from "./fake-model/server.js";

/**
 * Backend-level end-to-end: each backend runs the REAL agent CLI (installed at a pinned version
 * by cli-install.ts) in a temporary git repository against the fake model server on 127.0.0.1.
 * The CLIs run one after another (2 cores).
 */

let fake: FakeModel;
let bins: Record<string, string>;

beforeAll(async () => {
  bins = await installClis();
  fake = await startFakeModel(backendScript());
}, 30 * 60_000);

afterAll(async () => {
  await fake?.close();
});

/** What the fake reported for the model calls made since request number `from`. */
function reportedUsage(from: number): Usage {
  const sum: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const r of fake.requests.slice(from)) {
    if (!r.reply || !r.conversation || !("text" in r.reply || "toolCall" in r.reply)) continue;
    const u = wireUsage(r.conversation.api, r.reply);
    sum.input += u.input;
    sum.output += u.output;
    sum.cacheRead += u.cacheRead;
    sum.cacheWrite += u.cacheWrite;
  }
  return sum;
}

function rulesSince(from: number): string[] {
  return fake.requests.slice(from).flatMap((r) => (r.rule ? [r.rule] : []));
}

function costInTranscript(path: string): number | undefined {
  const line = readFileSync(path, "utf8")
    .split("\n")
    .find((l) => l.startsWith("{") && l.includes('"type":"result"'));
  return line ? (JSON.parse(line) as { total_cost_usd?: number }).total_cost_usd : undefined;
}

describe.each(CLI_CASES)("$name backend against the real CLI", (c: CliCase) => {
  const home = tempDir(`${c.name}-home`);
  const runner = recordingRunner();
  const retry = { attempts: 2, baseMs: 10, maxMs: 10 };
  let backend: AgentBackend;
  let n = 0;
  // Every run keeps its transcript (the raw stream) in the temporary home, for diagnosis.
  const req = (cwd: string, prompt: string, extra: Parameters<typeof request>[2] = {}) =>
    request(cwd, prompt, {
      env: c.env(fake.url, home),
      extraArgs: c.extraArgs(fake.url),
      transcriptPath: join(home, "transcripts", `${++n}.log`),
      ...extra,
    });

  beforeAll(() => {
    backend = c.backend(bins[c.name] ?? "", { runner, baseEnv: isolatedEnv(home), retry });
  });

  it("writes a file with the CLI's own tool, then reports text, session, usage and cost", async () => {
    const repo = tempRepo();
    const target = join(repo, "hello.txt");
    const from = fake.requests.length;
    const progress: string[] = [];
    const transcriptPath = join(home, `${c.name}-implement.log`);
    const result = await backend.run(
      req(repo, `Create the file. WRITE_FILE path=${target} content=hello-from-${c.name}`, {
        transcriptPath,
        onProgress: (p) => progress.push(p.kind),
      }),
    );
    expect(result.failure).toBeUndefined();
    expect(result.ok).toBe(true);
    expect(readFileSync(target, "utf8").trim()).toBe(`hello-from-${c.name}`);
    expect(result.text).toBe("DONE: the file is written");
    expect(result.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(rulesSince(from)).toEqual(expect.arrayContaining(["write", "after-tool"]));
    const usage = reportedUsage(from);
    expect(result.usage).toEqual(usage);
    const reported = c.name === "claude-code" ? costInTranscript(transcriptPath) : undefined;
    expect(result.costUsd).toBeGreaterThan(0);
    expect(result.costUsd).toBeCloseTo(c.expectedCost(usage, reported), 9);
    expect(result.transcriptPath).toBe(transcriptPath);
    expect(progress).toContain("tool");
  });

  it("returns the structured review when the request carries a schema", async () => {
    const repo = tempRepo();
    const result = await backend.run(
      req(repo, "Review the diff. REVIEW_NOW", { purpose: "review", schema: REVIEW_SCHEMA }),
    );
    expect(result.failure).toBeUndefined();
    expect(result.structured).toEqual(REVIEW);
  });

  it("resumes the same session: the model sees the earlier transcript", async () => {
    const repo = tempRepo();
    const first = await backend.run(req(repo, "REMEMBER the word PINEAPPLE"));
    expect(first.ok).toBe(true);
    expect(first.sessionId).toBeDefined();
    const from = fake.requests.length;
    const second = await backend.run(
      req(repo, "RECALL_WORD: what was the word?", { sessionId: first.sessionId }),
    );
    expect(second.failure).toBeUndefined();
    expect(second.text).toBe("you said PINEAPPLE");
    expect(second.sessionId).toBe(first.sessionId);
    const seen = fake.requests.slice(from).find((r) => r.rule === "recall");
    expect(seen?.conversation?.transcript).toContain("noted the word");
  });

  it("reports HTTP 400 as a clear, non-transient API error without retrying", async () => {
    const repo = tempRepo();
    const runs = runner.results.length;
    const result = await backend.run(req(repo, "FAIL_400 please"));
    expect(result.ok).toBe(false);
    expect(result.failure?.kind).toBe("api_error");
    expect(result.failure?.message).toMatch(/^API error 400: .*prompt is malformed/);
    expect(result.failure?.transient).toBe(false);
    // The CLI may retry on its own (Claude Code re-sends some 400s); fixpoint must not run it again.
    expect(runner.results.length - runs).toBe(1);
  });

  it("reports HTTP 500 as a transient API error after one backoff retry", async () => {
    const repo = tempRepo();
    const runs = runner.results.length;
    const result = await backend.run(req(repo, "FAIL_500 please"));
    expect(result.ok).toBe(false);
    // Codex words a 5xx without its status ("high demand"): still a transient server error.
    expect(result.failure?.message).toMatch(/^API error (500|5xx): /);
    expect(result.failure?.transient).toBe(true);
    expect(runner.results.length - runs).toBe(2);
  });

  it("ends a hung model call at the timeout and leaves no process behind", async () => {
    const repo = tempRepo();
    const runs = runner.results.length;
    const result = await backend.run(req(repo, "HANG_NOW", { timeoutMs: 4_000 }));
    expect(result.ok).toBe(false);
    expect(result.failure).toEqual({ kind: "timeout", message: "timed out after 4s", transient: false });
    const pid = runner.results[runs]?.pid;
    expect(pid).toBeGreaterThan(0);
    expect(groupAlive(pid ?? 0)).toBe(false);
    expect(existsSync(repo)).toBe(true);
  });
});
