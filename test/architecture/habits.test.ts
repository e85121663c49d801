import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));

/** `catch {}` / `catch (e) {}` with nothing inside, not even a comment saying why. */
const EMPTY_CATCH = /catch\s*(?:\([^)]*\))?\s*\{\s*\}/g;

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split("\n").length;
}

function emptyCatches(text: string): number[] {
  return [...text.matchAll(EMPTY_CATCH)].map((m) => lineOf(text, m.index ?? 0));
}

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p) : n.endsWith(".ts") ? [p] : [];
  });
}

describe("no swallowed errors", () => {
  it("every catch in src/ handles, rethrows, or says why it ignores", () => {
    const found = files(SRC).flatMap((f) => {
      const text = readFileSync(f, "utf8");
      return emptyCatches(text).map((line) => `${relative(SRC, f)}:${line}`);
    });
    expect(found).toEqual([]);
  });

  it("the check sees an empty catch and accepts one with a reason", () => {
    expect(emptyCatches("try { a(); } catch {}\ntry { b(); } catch (e) {\n}\n")).toEqual([1, 2]);
    expect(emptyCatches("try { a(); } catch {\n  // gone already: nothing to undo\n}\n")).toEqual([]);
  });
});
