import { describe, expect, it } from "vitest";
import { finding } from "../../test/store/samples.js";
import type { Finding } from "../domain/types.js";
import { copyFinding, hasFindingShape } from "./finding-copy.js";
import { Registry } from "./registry.js";

const keysOf = (o: object) => Reflect.ownKeys(o);

describe("copying findings", () => {
  it("a finding with exactly Finding's keys is copied by a literal into what a spread gives", () => {
    const f = finding("t-1", "F-1", { note: "n", suggestedFix: "s" });
    expect(hasFindingShape(f)).toBe(true);
    const copy = copyFinding(f);
    expect(copy).toStrictEqual({ ...f });
    expect(keysOf(copy)).toEqual(keysOf({ ...f }));
  });

  it("anything else is not taken for a finding: extra, missing or reordered keys, symbols, a prototype", () => {
    const f = finding("t-1", "F-1");
    const { note: _note, ...missing } = f;
    const { taskId, ...rest } = f;
    const inherited = Object.assign(Object.create({ inherited: 1 }) as Finding, f);
    const odd: Finding[] = [
      { ...f, extra: 1 } as Finding,
      missing as Finding,
      { ...rest, taskId },
      { ...f, [Symbol("s")]: 1 },
      inherited,
    ];
    for (const o of odd) expect(hasFindingShape(o)).toBe(false);
    expect(hasFindingShape(Object.assign(Object.create(null) as Finding, f))).toBe(true);
  });

  it("the registry hands a finding loaded with other keys back with them, in their order", () => {
    const { taskId, ...rest } = finding("t-1", "F-1");
    const extra = { ...rest, legacy: "kept", taskId } as Finding;
    const plain = finding("t-1", "F-2");
    const r = Registry.load("t-1", [extra, plain], { blockingSeverity: "P1", now: () => 1 });
    const [a, b] = r.all();
    expect(a).toStrictEqual(extra);
    expect(keysOf(a as Finding)).toEqual(keysOf(extra));
    expect(b).toStrictEqual(plain);
    expect(keysOf(b as Finding)).toEqual(keysOf(plain));
    expect(r.forFix().map((f) => keysOf(f))).toEqual([keysOf(extra), keysOf(plain)]);
  });
});
