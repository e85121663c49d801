import { describe, expect, it } from "vitest";
import { expectFaithfulRelay, runChild } from "../../test/helpers/child-run.js";
import type { ChildSpec } from "./child-spec.js";
import { HELPER_ABOVE_MS, STARTS_BEFORE_HELPER, spawnHelperPid, startChild, wantsHelper } from "./spawner.js";

// Whatever a fork from this test process costs, the helper is used (see wantsHelper below).
process.env.FIXPOINT_SPAWN_HELPER = "1";

const run = (spec: Partial<ChildSpec> & { args: string[] }, onSpawn?: (pid: number) => void) =>
  runChild(startChild, spec, onSpawn);

/** Spawns until the helper reports ready (it starts after STARTS_BEFORE_HELPER spawns). */
async function helperReady(): Promise<number> {
  for (let i = 0; i < 200 && spawnHelperPid() === null; i++) await run({ args: ["-c", "exit 0"] });
  const pid = spawnHelperPid();
  if (pid === null) throw new Error("the spawn helper never became ready");
  return pid;
}

describe("wantsHelper", () => {
  it("uses the helper when the median of the last spawn calls here is slow, never before a few", () => {
    const slow = HELPER_ABOVE_MS + 1;
    const fast = HELPER_ABOVE_MS / 2;
    expect(wantsHelper([], undefined)).toBe(false);
    expect(wantsHelper([slow, slow], undefined)).toBe(STARTS_BEFORE_HELPER <= 2);
    expect(wantsHelper([slow, slow, slow], undefined)).toBe(true);
    // One slow spawn on a noisy machine is not enough.
    expect(wantsHelper([fast, slow, fast], undefined)).toBe(false);
    expect(wantsHelper([slow, fast, slow], undefined)).toBe(true);
    expect(wantsHelper([slow, slow, slow], "0")).toBe(false);
    expect(wantsHelper([fast, fast, fast], "1")).toBe(true);
    expect(wantsHelper([fast, fast], "1")).toBe(false);
  });
});

describe("startChild", () => {
  it("starts the first children itself, then from the helper, with the same results", async () => {
    const first = await run({ args: ["-c", 'echo "$PPID"'] });
    expect(Number(first.stdout.trim())).toBe(process.pid);
    expect(STARTS_BEFORE_HELPER).toBeGreaterThan(1);

    const helper = await helperReady();
    expect(helper).not.toBe(process.pid);
    const later = await run({ args: ["-c", 'echo "$PPID"'] });
    expect(Number(later.stdout.trim())).toBe(helper);
  });

  it("relays input, output in order, exit codes, signals and the environment through the helper", async () => {
    await helperReady();
    await expectFaithfulRelay(run);

    const env = await run({ args: ["-c", 'echo "$ONLY_HERE"'], env: { ...process.env, ONLY_HERE: "yes" } });
    expect(env.stdout).toBe("yes\n");
  });

  it("reports a missing program or folder as not started, with the errno code", async () => {
    await helperReady();
    const missing = await run({ command: "fixpoint-no-such-program-here", args: [] });
    expect(missing.failed?.code).toBe("ENOENT");
    expect(missing.pid).toBeUndefined();
    const noCwd = await run({ args: ["-c", "exit 0"], cwd: "/nonexistent/fixpoint-folder" });
    expect(noCwd.failed?.code).toBe("ENOENT");
  });

  it("stops a child on timeout and on abort (SIGTERM), and a detached one leads its own group", async () => {
    await helperReady();
    const slow = await run({ args: ["-c", "exec sleep 5"], timeout: 100 });
    expect(slow.signal).toBe("SIGTERM");

    const ac = new AbortController();
    const aborted = run({ args: ["-c", "exec sleep 5"], signal: ac.signal }, () => ac.abort());
    expect((await aborted).signal).toBe("SIGTERM");

    // Field 5 of /proc/<pid>/stat is the process group.
    const group = await run({
      args: ["-c", "read -r a b c d e rest < /proc/$$/stat; echo $e"],
      detached: true,
    });
    expect(Number(group.stdout.trim())).toBe(group.pid);
  });

  it("when the helper is killed, a running child is reported ended and later children still run", async () => {
    const helper = await helperReady();
    const running = run({ args: ["-c", "sleep 2"] }, () => process.kill(helper, "SIGKILL"));
    const ended = await running;
    expect(ended.code).toBeNull();
    expect(ended.stderr).toContain("helper process that starts commands exited");
    const after = await run({ args: ["-c", "echo fine"] });
    expect(after.stdout).toBe("fine\n");
    expect(await helperReady()).not.toBe(helper);
  });
});
