import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { constants, tmpdir } from "node:os";
import { basename, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expectFaithfulRelay, runChild } from "../../test/helpers/child-run.js";
import { processStartTicks } from "./agent-groups.js";
import type { ChildEvents, ChildSpec } from "./child-spec.js";
import { nativeSpawner, startNative } from "./native-spawn.js";
import { startChild } from "./spawner.js";

// `npm install` builds the starter on Linux (scripts/build-native.mjs); a missing one fails here
// rather than letting every child quietly fall back to a fork.
const addon = nativeSpawner();
const start = (spec: ChildSpec, events: ChildEvents) => {
  if (addon === null)
    throw new Error("build/Release/fixpoint_spawn.node is missing: run `npm run build:native`");
  startNative(addon, spec, events);
};
const run = (
  spec: Partial<ChildSpec> & { args: string[] },
  onSpawn?: (pid: number, startTicks?: number) => void,
) => runChild(start, spec, onSpawn);

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("the native starter (posix_spawn)", () => {
  it("is built on Linux", () => {
    expect(process.platform === "linux" ? addon : null).not.toBeNull();
  });

  it("gives the child its input, and hands back its output in order, its exit code and its signal", async () => {
    await expectFaithfulRelay(run);
    // Input the socket cannot take at once, to a child that never reads it: no error, no wait.
    const unread = await run({ args: ["-c", "exit 3"], input: "y".repeat(2_000_000) });
    expect(unread).toMatchObject({ code: 3, signal: null });
    expect(unread.failed).toBeUndefined();
    // A child that closes its stdin and goes on: the input's rest is dropped, its output kept.
    for (const size of [10, 2_000_000]) {
      const closer = await run({ args: ["-c", "exec 0<&-; sleep 0.1; echo done"], input: "z".repeat(size) });
      expect(closer).toMatchObject({ code: 0, signal: null, stdout: "done\n" });
      expect(closer.failed).toBeUndefined();
    }
    const terminated = await run({ args: ["-c", "kill -TERM $$"] });
    expect(terminated).toMatchObject({ code: null, signal: "SIGTERM" });
  });

  it("runs in the folder, with the environment and argv asked for, its PATH searched for the program", async () => {
    const bin = mkdtempSync(join(tmpdir(), "fixpoint-native-spawn-"));
    dirs.push(bin);
    writeFileSync(join(bin, "fixpoint-only-here"), '#!/bin/sh\necho "here $# [$1] $PWD $ONLY_HERE"\n', {
      mode: 0o755,
    });
    const env = { PATH: `${bin}:/usr/bin:/bin`, ONLY_HERE: "yes" };
    const r = await run({ command: "fixpoint-only-here", args: ["a b"], cwd: "/usr", env });
    expect(r.stdout).toBe("here 1 [a b] /usr yes\n");
    // A relative PATH entry is relative to the child's folder.
    const relative = await run({
      command: "fixpoint-only-here",
      args: [],
      cwd: join(bin, ".."),
      env: { PATH: basename(bin) },
    });
    expect(relative.stdout).toBe(`here 0 [] ${join(bin, "..")} \n`);
    // Only the environment given: nothing of this process's own.
    const only = await run({ args: ["-c", "env | sort"], env: { PATH: "/usr/bin:/bin", ONE: "1" } });
    expect(only.stdout.split("\n").filter((l) => l !== "" && !/^(PWD|SHLVL|_)=/.test(l))).toEqual([
      "ONE=1",
      "PATH=/usr/bin:/bin",
    ]);
  });

  it("reports a program that is missing or not executable, and a missing folder, as not started", async () => {
    const missing = await run({ command: "fixpoint-no-such-program-here", args: [] });
    expect(missing.failed?.code).toBe("ENOENT");
    expect(missing.failed?.syscall).toBe("spawn fixpoint-no-such-program-here");
    expect(missing.pid).toBeUndefined();

    const dir = mkdtempSync(join(tmpdir(), "fixpoint-native-spawn-"));
    dirs.push(dir);
    writeFileSync(join(dir, "not-executable"), "#!/bin/sh\n", { mode: 0o644 });
    const denied = await run({ command: join(dir, "not-executable"), args: [] });
    expect(denied.failed?.code).toBe("EACCES");
    const notInPath = await run({ command: "not-executable", args: [], env: { PATH: dir } });
    expect(notInPath.failed?.code).toBe("EACCES");

    const noCwd = await run({ args: ["-c", "exit 0"], cwd: "/nonexistent/fixpoint-folder" });
    expect(noCwd.failed?.code).toBe("ENOENT");
    const nul = await run({ args: ["-c", "echo a\0b"] });
    expect(nul.failed?.code).toBe("ERR_INVALID_ARG_VALUE");
  });

  it("starts the child as a shell would: default signal handlers, nothing blocked, only fds 0-2", async () => {
    // Node ignores SIGPIPE and SIGXFSZ; a child that inherited that would not die writing to a
    // closed pipe. (Signals 32 and up are glibc's own and the realtime ones: not checked.)
    // (`exec`: grep reads its own state as the shell passed it on; a shell that forks blocks
    // every signal for a moment around the fork, which grep could catch in /proc/$$.)
    const sig = await run({ args: ["-c", "exec grep -E '^(SigIgn|SigBlk)' /proc/self/status"] });
    const mask = (name: string) =>
      BigInt(`0x${new RegExp(`^${name}:\\s*([0-9a-f]+)$`, "m").exec(sig.stdout)?.[1] ?? "ff"}`);
    const standard = (1n << 31n) - 1n;
    expect(mask("SigBlk") & standard).toBe(0n);
    expect(mask("SigIgn") & standard).toBe(0n);
    // `exec`: whether a shell runs its last command in place or forks it differs between shells;
    // with exec the listing is the child's own. The one `ls` opened to read the folder is dropped.
    const fds = await run({ args: ["-c", "exec ls -l /proc/self/fd"] });
    const extra = fds.stdout
      .split("\n")
      .map((l) => /\s(\d+) -> (.*)$/.exec(l))
      .filter((m): m is RegExpExecArray => m !== null && Number(m[1]) > 2)
      .filter((m) => !/^\/proc\/\d+\/fd$/.test(m[2] ?? ""));
    expect(extra.map((m) => m[0])).toEqual([]);
    // stdio are sockets, as Node's spawn gives them.
    const kinds = await run({ args: ["-c", "readlink /proc/$$/fd/0 /proc/$$/fd/1 /proc/$$/fd/2"] });
    expect(
      kinds.stdout
        .trim()
        .split("\n")
        .every((l) => l.startsWith("socket:")),
    ).toBe(true);
  });

  it("tells when the child started, in /proc/<pid>/stat's clock ticks, whenever it knows it exactly", async () => {
    // The worker records each agent's process group with its leader's start time; the starter
    // reads the boot clock around posix_spawn, and says nothing when the two reads fall in
    // different ticks (the child's tick is then one of two).
    let known = 0;
    for (let i = 0; i < 60; i++) {
      let told: { ticks: number | undefined; read: number | null } | undefined;
      // The child stays in /proc, unreaped, until this returns (the next test).
      await run({ args: ["-c", "exit 0"], detached: true }, (pid, ticks) => {
        told = { ticks, read: processStartTicks(pid) };
      });
      if (told === undefined) throw new Error("closed before spawned");
      expect(told.read).not.toBeNull();
      if (told.ticks === undefined) continue;
      known++;
      expect(told.ticks).toBe(told.read);
    }
    expect(known).toBeGreaterThan(0);
  });

  it("leaves a child that exits at once in /proc until the start has been handled, and reaps it after", async () => {
    // The worker reads the leader's start time from /proc/<pid>/stat when the starter could not
    // tell it, to record its process group; a child reaped by then went unrecorded.
    let ticks: number | null = null;
    let pid = 0;
    const ended = await run({ args: ["-c", "exit 4"] }, (p) => {
      pid = p;
      const until = Date.now() + 100;
      while (Date.now() < until) {
        // The child has long exited: it waits, unreaped, for this thread.
      }
      ticks = processStartTicks(p);
    });
    expect(ended).toMatchObject({ code: 4, signal: null });
    expect(ticks).not.toBeNull();
    // Reaped once its end was reported: no zombie left behind.
    expect(existsSync(`/proc/${pid}`)).toBe(false);
  });

  it("puts a detached child at the head of a process group of its own, and an attached one in ours", async () => {
    // Field 5 of /proc/<pid>/stat is the process group.
    const pgrp = "read -r a b c d e rest < /proc/$$/stat; echo $e";
    const detached = await run({ args: ["-c", pgrp], detached: true });
    expect(Number(detached.stdout.trim())).toBe(detached.pid);
    const attached = await run({ args: ["-c", pgrp] });
    expect(Number(attached.stdout.trim())).not.toBe(attached.pid);
  });

  it("asks whether a process group has a member as kill(-pgid, 0) does, answering with the errno", async () => {
    const probe = addon?.probeGroup;
    if (probe === undefined) throw new Error("the starter has no probeGroup: run `npm run build:native`");
    let pgid = 0;
    const done = run({ args: ["-c", "sleep 0.2"], detached: true }, (pid) => {
      pgid = pid;
    });
    expect(pgid).toBeGreaterThan(1);
    expect(probe(pgid)).toBe(0);
    await done;
    expect(probe(pgid)).toBe(constants.errno.ESRCH);
    for (const bad of [1, 0, -4]) expect(() => probe(bad)).toThrow(/above 1/);
  });

  it("is what startChild uses unless FIXPOINT_SPAWN_HELPER asks for a fork, and keeps its limits", async () => {
    const before = process.env.FIXPOINT_SPAWN_HELPER;
    delete process.env.FIXPOINT_SPAWN_HELPER;
    try {
      const ppid = await runChild(startChild, { args: ["-c", 'echo "$PPID"; readlink /proc/$$/fd/0'] });
      const [parent, stdin] = ppid.stdout.trim().split("\n");
      expect(Number(parent)).toBe(process.pid);
      expect(stdin).toMatch(/^socket:/);

      const slow = await runChild(startChild, { args: ["-c", "exec sleep 5"], timeout: 100 });
      expect(slow.signal).toBe("SIGTERM");
      const ac = new AbortController();
      const aborted = await runChild(startChild, { args: ["-c", "exec sleep 5"], signal: ac.signal }, () =>
        ac.abort(),
      );
      expect(aborted.signal).toBe("SIGTERM");
    } finally {
      if (before === undefined) delete process.env.FIXPOINT_SPAWN_HELPER;
      else process.env.FIXPOINT_SPAWN_HELPER = before;
    }
  });

  it("waits for the child's output to close, as Node's close event does, when a grandchild holds it", async () => {
    const t = performance.now();
    const r = await run({ args: ["-c", "(sleep 0.3; echo late) & echo early"] });
    expect(r.stdout).toBe("early\nlate\n");
    expect(r.code).toBe(0);
    expect(performance.now() - t).toBeGreaterThanOrEqual(250);
  });
});
