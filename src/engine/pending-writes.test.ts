import { describe, expect, it } from "vitest";
import { PendingWrites } from "./pending-writes.js";

const later = <T>(ms: number, value: T, fail = false) =>
  new Promise<T>((resolve, reject) =>
    setTimeout(() => (fail ? reject(new Error("no")) : resolve(value)), ms),
  );

describe("PendingWrites", () => {
  it("settles once every write has ended, failed ones and those added while waiting included", async () => {
    const writes = new PendingWrites();
    const ended: string[] = [];
    writes.add(later(30, "a").then((v) => ended.push(v)));
    writes.add(later(5, "b", true));
    writes.add(
      later(10, "c").then((v) => {
        ended.push(v);
        writes.add(later(40, "d").then((d) => ended.push(d)));
      }),
    );
    await writes.settle();
    expect(ended.sort()).toEqual(["a", "c", "d"]);
    await writes.settle();
  });
});
