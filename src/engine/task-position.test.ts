import { describe, expect, it } from "vitest";
import type { TaskPatch } from "../domain/store.js";
import { TaskPosition } from "./task-position.js";

/** A position writer whose writes are recorded and can be held open. */
function recorder() {
  const written: { patch: TaskPatch; now: number }[] = [];
  let release: (() => void) | null = null;
  let hold = false;
  const write = async (patch: TaskPatch, now: number): Promise<void> => {
    if (hold) await new Promise<void>((r) => (release = r));
    written.push({ patch, now });
  };
  return {
    written,
    write,
    holdNext: () => (hold = true),
    release: () => {
      hold = false;
      release?.();
    },
  };
}

const at = (stage: string): TaskPatch => ({ currentStage: stage, cycle: 0 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("TaskPosition", () => {
  it("lets a record carry the position once per interval and writes the latest one left over after it", async () => {
    let clock = 0;
    const w = recorder();
    const position = new TaskPosition(w.write, 40, () => clock);
    expect(await position.forRecord(at("s0"), 1)).toEqual(at("s0"));
    clock = 5;
    expect(await position.forRecord(at("s1"), 2)).toBeNull();
    clock = 10;
    expect(await position.forRecord(at("s2"), 3)).toBeNull();
    expect(w.written).toEqual([]);
    await sleep(80);
    // The timer wrote the newest position, once, with its record's time.
    expect(w.written).toEqual([{ patch: at("s2"), now: 3 }]);
    clock = 200;
    expect(await position.forRecord(at("s3"), 4)).toEqual(at("s3"));
    await sleep(60);
    expect(w.written).toHaveLength(1);
  });

  it("a record due again takes over the position the timer would have written", async () => {
    let clock = 0;
    const w = recorder();
    const position = new TaskPosition(w.write, 1_000, () => clock);
    await position.forRecord(at("s0"), 1);
    clock = 10;
    expect(await position.forRecord(at("s1"), 2)).toBeNull();
    clock = 1_500;
    expect(await position.forRecord(at("s2"), 3)).toEqual(at("s2"));
    await position.stop();
    expect(w.written).toEqual([]);
  });

  it("an urgent patch is carried at once, after a position still being written, never before it", async () => {
    let clock = 0;
    const w = recorder();
    const position = new TaskPosition(w.write, 20, () => clock);
    await position.forRecord(at("s0"), 1);
    clock = 1;
    expect(await position.forRecord(at("s1"), 2)).toBeNull();
    w.holdNext();
    await sleep(50);
    expect(w.written).toEqual([]);
    const pause = { ...at("s2"), status: "needs_human" as const };
    let carried: TaskPatch | null | undefined;
    const urgent = position.forRecord(pause, 3, true).then((p) => (carried = p));
    await sleep(10);
    expect(carried).toBeUndefined();
    w.release();
    await urgent;
    expect(carried).toEqual(pause);
    expect(w.written).toEqual([{ patch: at("s1"), now: 2 }]);
  });

  it("after stop nothing more is written: the run's end writes the row itself", async () => {
    let clock = 0;
    const w = recorder();
    const position = new TaskPosition(w.write, 20, () => clock);
    await position.forRecord(at("s0"), 1);
    clock = 1;
    expect(await position.forRecord(at("s1"), 2)).toBeNull();
    await position.stop();
    await sleep(50);
    expect(w.written).toEqual([]);
  });

  it("a failed write is not retried and does not stop later records", async () => {
    let clock = 0;
    let calls = 0;
    const position = new TaskPosition(
      async () => {
        calls++;
        throw new Error("lease lost");
      },
      20,
      () => clock,
    );
    await position.forRecord(at("s0"), 1);
    clock = 1;
    await position.forRecord(at("s1"), 2);
    await sleep(50);
    expect(calls).toBe(1);
    clock = 100;
    expect(await position.forRecord(at("s2"), 3)).toEqual(at("s2"));
  });
});
