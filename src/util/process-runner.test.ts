import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { createProcessRunner } from "./process-runner.js";

const runner = createProcessRunner();
const cwd = tmpdir();

function sh(script: string) {
  return { command: "sh", args: ["-c", script], cwd };
}

function errnoOf(fn: () => void): string | undefined {
  try {
    fn();
    return undefined;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code;
  }
}

/**
 * A killed process is gone (ESRCH) or, when its parent died first, a zombie waiting for PID 1
 * to reap it — in some containers PID 1 reaps orphans only every few seconds. A zombie runs no
 * code and holds no resources but its pid, so for "the tree was killed" both count.
 */
function isDead(pid: number): boolean {
  if (errnoOf(() => process.kill(pid, 0)) === "ESRCH") return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    return true; // vanished between the two checks
  }
}

describe("createProcessRunner", () => {
  it("passes input on stdin and returns both streams and the exit code", async () => {
    const res = await runner.run({ ...sh("cat; echo oops >&2; exit 3"), input: "hello\n" });
    expect(res).toMatchObject({ exitCode: 3, stdout: "hello\n", stderr: "oops\n", timedOut: false });
    expect(res.spawnError).toBeUndefined();
    expect(res.pid).toBeGreaterThan(0);
  });

  it("closes stdin at once when there is no input", async () => {
    const res = await runner.run({ ...sh("cat; echo done"), timeoutMs: 3000 });
    expect(res).toMatchObject({ exitCode: 0, stdout: "done\n", timedOut: false });
  });

  it("on timeout kills the whole process group and reaps the child", async () => {
    const lines: string[] = [];
    const started = Date.now();
    // The leader reaps its own child after the group's SIGTERM, so no orphan is left behind.
    const res = await runner.run({
      ...sh("trap 'wait; exit 143' TERM; sleep 30 & echo $!; wait"),
      timeoutMs: 400,
      killGraceMs: 1000,
      onStdoutLine: (l) => lines.push(l),
    });
    const elapsed = Date.now() - started;
    const grandchild = Number(lines[0]);
    expect(grandchild).toBeGreaterThan(0);
    expect(res.timedOut).toBe(true);
    expect(elapsed).toBeLessThan(400 + 1000 + 500);
    expect(errnoOf(() => process.kill(grandchild, 0))).toBe("ESRCH");
    expect(errnoOf(() => process.kill(res.pid as number, 0))).toBe("ESRCH");
  });

  it("escalates to SIGKILL when a grandchild ignores SIGTERM and holds stdout", async () => {
    const lines: string[] = [];
    const started = Date.now();
    const res = await runner.run({
      ...sh("(trap '' TERM; exec sleep 30) & echo $!; wait"),
      timeoutMs: 300,
      killGraceMs: 300,
      onStdoutLine: (l) => lines.push(l),
    });
    const elapsed = Date.now() - started;
    expect(res.timedOut).toBe(true);
    expect(elapsed).toBeGreaterThanOrEqual(550);
    expect(elapsed).toBeLessThan(2000);
    expect(isDead(Number(lines[0]))).toBe(true);
  });

  it("kills group members that detached from stdout before returning", async () => {
    const lines: string[] = [];
    const res = await runner.run({
      ...sh("(trap '' TERM; exec sleep 30) >/dev/null 2>&1 & echo $!; wait"),
      timeoutMs: 300,
      killGraceMs: 300,
      onStdoutLine: (l) => lines.push(l),
    });
    expect(res.timedOut).toBe(true);
    expect(isDead(Number(lines[0]))).toBe(true);
  });

  it("cancels on abort and reports it", async () => {
    const ac = new AbortController();
    const started = Date.now();
    setTimeout(() => ac.abort(), 200);
    const res = await runner.run({ ...sh("sleep 30"), signal: ac.signal, killGraceMs: 500 });
    expect(res.cancelled).toBe(true);
    expect(res.timedOut).toBe(false);
    expect(res.signal).toBe("SIGTERM");
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it("does not start work for an already-aborted signal", async () => {
    const ac = new AbortController();
    ac.abort();
    const res = await runner.run({ ...sh("sleep 30"), signal: ac.signal });
    expect(res.cancelled).toBe(true);
    expect(res.exitCode).toBeNull();
  });

  it("survives EPIPE when the child exits without reading its input", async () => {
    const input = "x".repeat(4 * 1024 * 1024);
    const res = await runner.run({ ...sh("echo early; exit 0"), input });
    expect(res).toMatchObject({ exitCode: 0, stdout: "early\n" });
  });

  it("splits stdout lines on \\n only, keeping U+2028 inside a line", async () => {
    const lines: string[] = [];
    const script = 'process.stdout.write(\'a\\u2028b\\nc\\r\\n{"s":"x\\u2029y"}\\nlast\')';
    const res = await runner.run({
      command: process.execPath,
      args: ["-e", script],
      cwd,
      onStdoutLine: (l) => lines.push(l),
    });
    expect(res.exitCode).toBe(0);
    expect(lines).toEqual(["a\u2028b", "c", '{"s":"x\u2029y"}', "last"]);
  });

  it("keeps only the tail of a stream past maxBuffer", async () => {
    const res = await runner.run({ ...sh("printf '0123456789abcdef'"), maxBuffer: 6 });
    expect(res.stdout).toBe("abcdef");
  });

  it("reports a missing executable as a spawn error instead of throwing", async () => {
    const res = await runner.run({ command: "fixpoint-no-such-binary", args: [], cwd });
    expect(res.spawnError).toBe("not found");
    expect(res.exitCode).toBeNull();
  });

  it("says so when the working directory does not exist", async () => {
    const res = await runner.run({ ...sh("true"), cwd: "/nonexistent/fixpoint-test" });
    expect(res.spawnError).toContain("/nonexistent/fixpoint-test does not exist");
  });
});
