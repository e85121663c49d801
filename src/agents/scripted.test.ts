import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { AgentRequest } from "../domain/agent.js";
import { FixpointError } from "../errors.js";
import { createScriptedBackend, loadScriptedBackend } from "./scripted.js";

const dir = mkdtempSync(join(tmpdir(), "fixpoint-scripted-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function request(over: Partial<AgentRequest> = {}): AgentRequest {
  return {
    agent: "implementer",
    purpose: "implement",
    taskId: "t-1",
    stageId: "implement",
    cycle: 0,
    prompt: "Add a greeting.",
    cwd: dir,
    timeoutMs: 2000,
    env: {},
    signal: new AbortController().signal,
    ...over,
  };
}

describe("scripted backend", () => {
  it("does real work in the worktree and answers with usage and cost", async () => {
    const backend = createScriptedBackend(async (req, ctx) => {
      await writeFile(join(req.cwd, "hello.txt"), `hello from call ${ctx.invocation}\n`);
      return { text: "wrote hello.txt", usage: { input: 10, output: 3 }, costUsd: 0.5 };
    });
    const res = await backend.run(request());
    expect(readFileSync(join(dir, "hello.txt"), "utf8")).toBe("hello from call 1\n");
    expect(res).toMatchObject({ ok: true, text: "wrote hello.txt", costUsd: 0.5, exitCode: 0 });
    expect(res.usage).toEqual({ input: 10, output: 3, cacheRead: 0, cacheWrite: 0 });
    expect(backend.kind).toBe("scripted");
    expect(backend.supportsSessions).toBe(true);
  });

  it("counts invocations and keeps one session id per instance", async () => {
    const seen: number[] = [];
    const backend = createScriptedBackend((_req, ctx) => {
      seen.push(ctx.invocation);
      return { structured: { verdict: "APPROVED" } };
    });
    const first = await backend.run(request());
    const second = await backend.run(request());
    const resumed = await backend.run(request({ sessionId: "earlier" }));
    const other = await createScriptedBackend(() => ({})).run(request());
    expect(seen).toEqual([1, 2, 3]);
    expect(first.sessionId).toMatch(/^scripted-\d+$/);
    expect(second.sessionId).toBe(first.sessionId);
    expect(resumed.sessionId).toBe("earlier");
    expect(other.sessionId).not.toBe(first.sessionId);
    expect(first.structured).toEqual({ verdict: "APPROVED" });
    expect(first.text).toBe('{"verdict":"APPROVED"}');
  });

  it("passes a scripted failure through", async () => {
    const backend = createScriptedBackend(() => ({
      fail: { kind: "rate_limited", message: "429", transient: true },
    }));
    const res = await backend.run(request());
    expect(res.ok).toBe(false);
    expect(res.failure).toEqual({ kind: "rate_limited", message: "429", transient: true });
  });

  it("turns a thrown error into a failed result", async () => {
    const backend = createScriptedBackend(() => {
      throw new Error("script exploded");
    });
    const res = await backend.run(request());
    expect(res.ok).toBe(false);
    expect(res.failure?.kind).toBe("exit_nonzero");
    expect(res.failure?.message).toContain("script exploded");
  });

  it("times out a handler that never answers", async () => {
    const backend = createScriptedBackend(() => new Promise(() => {}));
    const started = Date.now();
    const res = await backend.run(request({ timeoutMs: 150 }));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(res.failure).toEqual({ kind: "timeout", message: "timed out after 150ms", transient: false });
  });

  it("is cancelled by the request's signal, also when already aborted", async () => {
    const backend = createScriptedBackend(() => new Promise(() => {}));
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 50);
    expect((await backend.run(request({ signal: ac.signal }))).failure?.kind).toBe("cancelled");
    expect((await backend.run(request({ signal: ac.signal }))).failure?.kind).toBe("cancelled");
  });

  it("writes a transcript of the prompt and the reply", async () => {
    const backend = createScriptedBackend(() => ({ text: "ok" }));
    const path = join(dir, "transcripts", "implement.txt");
    const res = await backend.run(request({ transcriptPath: path }));
    expect(res.transcriptPath).toBe(path);
    expect(readFileSync(path, "utf8")).toContain("## prompt\nAdd a greeting.\n");
  });
});

describe("loadScriptedBackend", () => {
  it("loads the default export of an ES module", async () => {
    const file = join(dir, "agent.mjs");
    writeFileSync(file, "export default (req, ctx) => ({ text: req.purpose + ' #' + ctx.invocation });\n");
    const backend = await loadScriptedBackend("agent.mjs", dir);
    const res = await backend.run(request({ purpose: "review" }));
    expect(res).toMatchObject({ ok: true, text: "review #1" });
  });

  it("refuses a module without a default function", async () => {
    const file = join(dir, "bad.mjs");
    writeFileSync(file, "export const handler = () => ({});\n");
    const err = await loadScriptedBackend(file).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FixpointError);
    expect((err as FixpointError).code).toBe("config");
    expect((err as FixpointError).message).toContain("default export");
  });

  it("says which module could not be loaded", async () => {
    const err = await loadScriptedBackend(join(dir, "missing.mjs")).catch((e: unknown) => e);
    expect((err as FixpointError).code).toBe("config");
    expect((err as FixpointError).message).toContain("missing.mjs");
  });
});
