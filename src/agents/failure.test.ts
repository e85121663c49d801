import { describe, expect, it } from "vitest";
import type { ProcessResult } from "../domain/process.js";
import { apiFailure, cliFailure } from "./failure.js";

const proc = (over: Partial<ProcessResult> = {}): ProcessResult => ({
  exitCode: 0,
  signal: null,
  stdout: "",
  stderr: "",
  timedOut: false,
  cancelled: false,
  durationMs: 5,
  ...over,
});

describe("apiFailure", () => {
  it("names auth, rate limits and server errors, and says which are worth a retry", () => {
    expect(apiFailure("invalid x-api-key", 401)).toEqual({
      kind: "auth",
      message: "auth failed: invalid x-api-key",
      transient: false,
    });
    expect(apiFailure("slow down", 429)).toEqual({
      kind: "rate_limited",
      message: "rate limited: slow down",
      transient: true,
    });
    expect(apiFailure("API Error: 500 the model fell over", 500)).toEqual({
      kind: "api_error",
      message: "API error 500: the model fell over",
      transient: true,
    });
    expect(apiFailure("read ECONNRESET").transient).toBe(true);
    expect(apiFailure("prompt too long", 400).transient).toBe(false);
  });

  it("unwraps error bodies passed on as text (Codex, pi)", () => {
    expect(apiFailure('{"error":{"message":"bad","type":"invalid_request_error"}}').message).toBe(
      "API error 400: bad",
    );
    expect(
      apiFailure('429 {"type":"error","error":{"type":"rate_limit_error","message":"wait"}}'),
    ).toMatchObject({
      kind: "rate_limited",
      message: "rate limited: wait",
    });
  });
});

describe("cliFailure", () => {
  const base = { timeoutMs: 600_000, program: "claude", complete: true };

  it("says `timed out after 10m` and `cancelled`", () => {
    expect(
      cliFailure({ ...base, process: proc({ timedOut: true, exitCode: null, signal: "SIGTERM" }) })?.message,
    ).toBe("timed out after 10m");
    expect(cliFailure({ ...base, process: proc({ cancelled: true, exitCode: null }) })?.kind).toBe(
      "cancelled",
    );
  });

  it("quotes the last line of stderr when the agent exits non-zero", () => {
    const f = cliFailure({
      ...base,
      complete: false,
      process: proc({ exitCode: 1, stderr: "starting\nboom: disk full\n\n" }),
    });
    expect(f).toEqual({ kind: "exit_nonzero", message: "agent exited 1: boom: disk full", transient: false });
  });

  it("tells a missing executable apart from other spawn errors", () => {
    expect(cliFailure({ ...base, process: proc({ spawnError: "not found", exitCode: null }) })?.message).toBe(
      "claude not found (is it installed and on PATH? `fixpoint doctor` checks every agent)",
    );
  });

  it("treats exit 0 without a final result as a failure (stream cut short)", () => {
    const f = cliFailure({
      ...base,
      complete: false,
      process: proc({ stdout: '{"type":"turn.started"}\n' }),
    });
    expect(f?.message).toMatch(/^agent ended without a final result/);
  });

  it("prefers the stream's own error over the exit code", () => {
    const f = cliFailure({
      ...base,
      streamError: { message: "API Error: 400 nope", status: 400 },
      process: proc({ exitCode: 1 }),
    });
    expect(f?.message).toBe("API error 400: nope");
  });

  it("is undefined for a clean, complete run", () => {
    expect(cliFailure({ ...base, process: proc() })).toBeUndefined();
  });
});
