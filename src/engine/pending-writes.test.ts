import { afterEach, describe, expect, it } from "vitest";
import { ARTIFACT_MAX_BYTES } from "../domain/store.js";
import { runAfterSpawnJobs } from "../util/after-spawn.js";
import { HELD_MAX_BYTES, PendingWrites } from "./pending-writes.js";

afterEach(() => runAfterSpawnJobs());

describe("PendingWrites", () => {
  it("holds the files whose text the store keeps whole until the run settles, then writes them in order", () => {
    const writes = new PendingWrites();
    const written: string[] = [];
    writes.file(() => written.push("a"), 100);
    writes.file(() => written.push("b"), ARTIFACT_MAX_BYTES);
    // The next child starts: nothing held is written then.
    runAfterSpawnJobs();
    expect(written).toEqual([]);
    writes.settle();
    expect(written).toEqual(["a", "b"]);
    writes.settle();
    expect(written).toEqual(["a", "b"]);
  });

  it("writes a file the store keeps only part of right after the next child starts", () => {
    const writes = new PendingWrites();
    const written: string[] = [];
    writes.file(() => written.push("small"), 10);
    writes.file(() => written.push("large"), ARTIFACT_MAX_BYTES + 1);
    expect(written).toEqual([]);
    runAfterSpawnJobs();
    expect(written).toEqual(["large"]);
    writes.settle();
    expect(written).toEqual(["large", "small"]);
  });

  it("writes what it holds once the held text passes its bound, and holds again from there", () => {
    const writes = new PendingWrites();
    const written: number[] = [];
    const each = ARTIFACT_MAX_BYTES;
    const n = Math.floor(HELD_MAX_BYTES / each) + 1;
    for (let i = 0; i < n; i++) writes.file(() => written.push(i), each);
    writes.file(() => written.push(n), 1);
    runAfterSpawnJobs();
    expect(written).toEqual([...Array(n).keys()]);
    writes.settle();
    expect(written).toEqual([...Array(n + 1).keys()]);
  });
});
