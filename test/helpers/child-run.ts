import { expect } from "vitest";
import type { ChildEvents, ChildSpec } from "../../src/util/child-spec.js";

/** What a child started through the spawner did, as its events told it. */
export interface Ended {
  pid?: number;
  failed?: NodeJS.ErrnoException;
  stdout: string;
  stderr: string;
  code: number | null;
  signal: NodeJS.Signals | null;
}

/**
 * Starts `sh` (or `spec.command`) in this folder with this environment through `start`
 * (spawner.ts's startChild, or a starter of its own) and resolves with what its events said.
 */
export function runChild(
  start: (spec: ChildSpec, events: ChildEvents) => void,
  spec: Partial<ChildSpec> & { args: string[] },
  onSpawn?: (pid: number, startTicks?: number) => void,
): Promise<Ended> {
  return new Promise((resolve) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let pid: number | undefined;
    const ended = (code: number | null, signal: NodeJS.Signals | null, failed?: NodeJS.ErrnoException) =>
      resolve({
        ...(pid === undefined ? {} : { pid }),
        ...(failed === undefined ? {} : { failed }),
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: Buffer.concat(err).toString("utf8"),
        code,
        signal,
      });
    start(
      { command: "sh", cwd: process.cwd(), env: process.env, detached: false, ...spec },
      {
        spawned: (p, startTicks) => {
          pid = p;
          onSpawn?.(p, startTicks);
        },
        failed: (e) => ended(null, null, e),
        stdout: (b) => out.push(b),
        stderr: (b) => err.push(b),
        closed: (code, signal) => ended(code, signal),
      },
    );
  });
}

/**
 * What every way of starting a child must pass on: 300 KB of input, output in order on both
 * streams, the exit code, 20,000 lines in order, and death by a signal.
 */
export async function expectFaithfulRelay(
  run: (spec: Partial<ChildSpec> & { args: string[] }) => Promise<Ended>,
): Promise<void> {
  const input = `${"x".repeat(300_000)}\nend`;
  const echo = await run({ args: ["-c", "cat; echo; echo to-stderr >&2; exit 7"], input });
  expect(echo).toMatchObject({ code: 7, signal: null, stdout: `${input}\n`, stderr: "to-stderr\n" });

  const many = await run({ args: ["-c", "i=0; while [ $i -lt 20000 ]; do echo line-$i; i=$((i+1)); done"] });
  const lines = many.stdout.trimEnd().split("\n");
  expect(lines).toHaveLength(20_000);
  expect(lines.every((l, i) => l === `line-${i}`)).toBe(true);

  const killed = await run({ args: ["-c", "kill -9 $$"] });
  expect(killed).toMatchObject({ code: null, signal: "SIGKILL" });
}
