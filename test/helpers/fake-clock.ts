import type { Clock } from "../../src/domain/clock.js";

/** A clock whose sleeps return at once and advance virtual time; it records every wait. */
export function fakeClock(start = 0): Clock & { slept: number[] } {
  let now = start;
  const slept: number[] = [];
  return {
    slept,
    now: () => now,
    sleep: async (ms) => {
      slept.push(ms);
      now += ms;
    },
  };
}
