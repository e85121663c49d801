import { describe, expect, it } from "vitest";
import type { TaskPatch } from "../domain/store.js";
import { TaskPosition } from "./task-position.js";

const at = (stage: string): TaskPatch => ({ currentStage: stage, cycle: 0 });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

/**
 * A TaskPosition on a clock the test moves, after two records 1 ms apart: s0 carried by its
 * record, s1 left to the timer.
 */
async function afterTwoRecords(everyMs: number, write = recorder().write) {
  const clock = { now: 0 };
  const position = new TaskPosition(write, everyMs, () => clock.now);
  expect(await position.forRecord(at("s0"), 1)).toEqual(at("s0"));
  clock.now = 1;
  expect(await position.forRecord(at("s1"), 2)).toBeNull();
  return { position, clock };
}

describe("TaskPosition", () => {
  it("lets a record carry the position once per interval and writes the latest one left over after it", async () => {
    const w = recorder();
    const { position, clock } = await afterTwoRecords(40, w.write);
    clock.now = 10;
    expect(await position.forRecord(at("s2"), 3)).toBeNull();
    expect(w.written).toEqual([]);
    await sleep(80);
    // The timer wrote the newest position, once, with its record's time.
    expect(w.written).toEqual([{ patch: at("s2"), now: 3 }]);
    clock.now = 200;
    expect(await position.forRecord(at("s3"), 4)).toEqual(at("s3"));
    await sleep(60);
    expect(w.written).toHaveLength(1);
  });

  it("a record due again takes over the position the timer would have written", async () => {
    const w = recorder();
    const { position, clock } = await afterTwoRecords(1_000, w.write);
    clock.now = 1_500;
    expect(await position.forRecord(at("s2"), 3)).toEqual(at("s2"));
    await position.stop();
    expect(w.written).toEqual([]);
  });

  it("an urgent patch is carried at once, after a position still being written, never before it", async () => {
    const w = recorder();
    const { position } = await afterTwoRecords(20, w.write);
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
    const w = recorder();
    const { position } = await afterTwoRecords(20, w.write);
    await position.stop();
    await sleep(50);
    expect(w.written).toEqual([]);
  });

  it("a failed write is not retried and does not stop later records", async () => {
    let calls = 0;
    const { position, clock } = await afterTwoRecords(20, async () => {
      calls++;
      throw new Error("lease lost");
    });
    await sleep(50);
    expect(calls).toBe(1);
    clock.now = 100;
    expect(await position.forRecord(at("s2"), 3)).toEqual(at("s2"));
  });
});
