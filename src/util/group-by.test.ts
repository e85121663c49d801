import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { groupBy } from "./group-by.js";

describe("groupBy", () => {
  it("holds each item under its key, in order, as a filter per key would", () => {
    fc.assert(
      fc.property(fc.array(fc.option(fc.integer({ min: 0, max: 5 }), { nil: undefined })), (keys) => {
        const items = keys.map((key, i) => ({ key, i }));
        const groups = groupBy(items, (x) => x.key);
        const wanted = [...new Set(keys.filter((k) => k !== undefined))];
        expect([...groups.keys()]).toEqual(wanted);
        for (const k of wanted) expect(groups.get(k)).toEqual(items.filter((x) => x.key === k));
      }),
    );
  });
});
