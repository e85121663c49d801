import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentProgress, AgentRequest } from "../domain/agent.js";
import { createCommandBackend } from "./command.js";

const dir = mkdtempSync(join(tmpdir(), "fixpoint-command-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Writes an agent script and returns a backend that runs it with node. */
function agent(name: string, source: string, baseEnv: NodeJS.ProcessEnv = { PATH: process.env.PATH }) {
  const file = join(dir, name);
  writeFileSync(file, source);
  return createCommandBackend({ command: [process.execPath, file, "--fixed"], baseEnv });
}

function request(over: Partial<AgentRequest> = {}): AgentRequest {
  return {
    agent: "reviewer",
    purpose: "review",
    taskId: "t-7",
    stageId: "review",
    cycle: 2,
    prompt: "Review the diff.",
    cwd: dir,
    timeoutMs: 5000,
    env: {},
    signal: new AbortController().signal,
    ...over,
  };
}

const readStdin = `const chunks = []; for await (const c of process.stdin) chunks.push(c);
const prompt = Buffer.concat(chunks).toString();`;

describe("command backend", () => {
  it("reads the JSON protocol line after progress text and maps usage", async () => {
    const backend = agent(
      "json.mjs",
      `${readStdin}
console.log("thinking about it");
console.log(JSON.stringify({
  text: "echo: " + prompt + " args=" + process.argv.slice(2).join(",") + " cwd=" + process.cwd(),
  structured: { verdict: "APPROVED", findings: [] },
  session_id: "sess-42",
  usage: { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 5, cache_creation_input_tokens: 7 },
  cost_usd: 0.0125,
}));`,
    );
    const progress: AgentProgress[] = [];
    const res = await backend.run(request({ extraArgs: ["--more"], onProgress: (p) => progress.push(p) }));
    expect(res.ok).toBe(true);
    expect(res.text).toBe(`echo: Review the diff. args=--fixed,--more cwd=${dir}`);
    expect(res.structured).toEqual({ verdict: "APPROVED", findings: [] });
    expect(res.sessionId).toBe("sess-42");
    expect(res.usage).toEqual({ input: 100, output: 20, cacheRead: 5, cacheWrite: 7 });
    expect(res.costUsd).toBe(0.0125);
    expect(res.exitCode).toBe(0);
    expect(progress).toEqual([{ kind: "text", message: "thinking about it" }]);
  });

  it("takes all of stdout as the text when it is not protocol JSON", async () => {
    const backend = agent("text.mjs", `console.log("line one"); console.log('{"not":"protocol"}');`);
    const res = await backend.run(request());
    expect(res).toMatchObject({ ok: true, text: 'line one\n{"not":"protocol"}', costUsd: 0 });
    expect(res.structured).toBeUndefined();
    expect(res.usage).toEqual({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 });
  });

  it("accepts a pretty-printed JSON reply spanning all of stdout", async () => {
    const backend = agent(
      "pretty.mjs",
      `console.log(JSON.stringify({ text: "done", structured: [1] }, null, 2));`,
    );
    const res = await backend.run(request());
    expect(res).toMatchObject({ ok: true, text: "done", structured: [1] });
  });

  it("reports a non-zero exit with the last line of stderr, trimmed", async () => {
    const long = "y".repeat(300);
    const backend = agent(
      "fail.mjs",
      `console.log("out"); console.error("first\\n${long}\\n\\n"); process.exit(1);`,
    );
    const res = await backend.run(request());
    expect(res.ok).toBe(false);
    expect(res.exitCode).toBe(1);
    expect(res.failure).toEqual({
      kind: "exit_nonzero",
      message: `agent exited 1: ${"y".repeat(200)}`,
      transient: false,
    });
  });

  it("falls back to stdout's last line when stderr is empty", async () => {
    const backend = agent("fail2.mjs", `console.log("cannot continue: no API key"); process.exit(4);`);
    const res = await backend.run(request());
    expect(res.failure?.message).toBe("agent exited 4: cannot continue: no API key");
  });

  it("filters the environment and describes the invocation in FIXPOINT_* variables", async () => {
    const baseEnv = {
      PATH: process.env.PATH,
      GITHUB_TOKEN: "ghp_fixpoints_own",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:4010",
      FIXPOINT_SESSION_ID: "inherited-from-a-parent",
    };
    const backend = agent("env.mjs", `console.log(JSON.stringify({ structured: process.env }));`, baseEnv);
    const schema = { type: "object" };
    const res = await backend.run(
      request({ env: { EXTRA: "1" }, schema, sessionId: "sess-1", model: "m-1" }),
    );
    const env = res.structured as Record<string, string>;
    expect(env.GITHUB_TOKEN).toBeUndefined();
    expect(env).toMatchObject({
      ANTHROPIC_BASE_URL: "http://127.0.0.1:4010",
      EXTRA: "1",
      FIXPOINT_TASK_ID: "t-7",
      FIXPOINT_STAGE: "review",
      FIXPOINT_PURPOSE: "review",
      FIXPOINT_CYCLE: "2",
      FIXPOINT_AGENT: "reviewer",
      FIXPOINT_SCHEMA: JSON.stringify(schema),
      FIXPOINT_SESSION_ID: "sess-1",
      FIXPOINT_MODEL: "m-1",
    });
    expect(res.sessionId).toBe("sess-1");

    const fresh = await backend.run(request());
    const freshEnv = fresh.structured as Record<string, string>;
    expect(freshEnv.FIXPOINT_SESSION_ID).toBeUndefined();
    expect(freshEnv.FIXPOINT_SCHEMA).toBeUndefined();
  });

  it("times out with a readable duration", async () => {
    const backend = agent("hang.mjs", `setTimeout(() => {}, 30000);`);
    const started = Date.now();
    const res = await backend.run(request({ timeoutMs: 400 }));
    expect(res.ok).toBe(false);
    expect(res.failure).toEqual({ kind: "timeout", message: "timed out after 400ms", transient: false });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it("is cancelled by the request's signal", async () => {
    const backend = agent("hang2.mjs", `setTimeout(() => {}, 30000);`);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 150);
    const res = await backend.run(request({ signal: ac.signal }));
    expect(res.failure?.kind).toBe("cancelled");
  });

  it("reports an executable that does not exist", async () => {
    const backend = createCommandBackend({ command: ["fixpoint-missing-agent"] });
    const res = await backend.run(request());
    expect(res.failure).toEqual({
      kind: "spawn_failed",
      message: "cannot run `fixpoint-missing-agent`: not found",
      transient: false,
    });
  });

  it("writes an owner-only transcript with secrets redacted", async () => {
    const baseEnv = { PATH: process.env.PATH, GITHUB_TOKEN: "ghp_withheld_but_known_1234" };
    const backend = agent(
      "transcript.mjs",
      `${readStdin}\nconsole.log("said " + prompt); console.error("leaked ghp_withheld_but_known_1234");`,
      baseEnv,
    );
    const path = join(dir, "nested", "deeper", "review.txt");
    const res = await backend.run(request({ transcriptPath: path }));
    expect(res.transcriptPath).toBe(path);
    const text = readFileSync(path, "utf8");
    expect(text).toContain("## prompt\nReview the diff.\n");
    expect(text).toContain("## stdout\nsaid Review the diff.\n");
    expect(text).toContain("## stderr\nleaked [REDACTED]\n");
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});
