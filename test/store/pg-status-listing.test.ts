/**
 * `status --json` from PostgreSQL read as binary COPY (task-json-page.ts): values written into the
 * statement (InlineValues, COPY takes no parameters) read back as given, whatever they hold; and
 * pages given back (TaskJsonPage.release) are written again without one page's bytes showing in
 * another.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InlineValues } from "../../src/store/postgres/sql.js";
import { pgFixtures } from "./pg-fixtures.js";
import { newTask } from "./samples.js";

const { freshDb, open, session } = pgFixtures();

const titles = (json: Uint8Array): string[] =>
  JSON.parse(`[${Buffer.from(json).toString("utf8")}]`).map((t: { title: string }) => t.title);

describe("InlineValues", () => {
  it("writes any text, number, truth value or list of texts as a literal that reads back the same", async () => {
    const db = await freshDb();
    const c = await session(db.url);
    // Either setting: an escape string reads the same under both.
    for (const conforming of ["on", "off"]) {
      await c.query(`SET standard_conforming_strings = ${conforming}`);
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(
            fc.string({ unit: fc.constantFrom("'", "\\", "E", "$", "\0", "\n", "é", "😀", "a", '"') }),
            fc.string({ unit: "binary" }),
            fc.integer(),
            fc.double({ noNaN: true, noDefaultInfinity: true }),
            fc.boolean(),
            fc.array(fc.string({ unit: "binary" }), { maxLength: 4 }),
          ),
          async (v) => {
            const literal = new InlineValues().add(v);
            const row = (await c.query(`SELECT ${literal} AS v`)).rows[0] as { v: unknown };
            const want = typeof v === "string" ? v.replaceAll("\0", "\uFFFD") : v;
            if (typeof v === "number") expect(Number(row.v)).toBe(v === 0 ? 0 : v);
            else if (Array.isArray(v)) expect(row.v).toEqual(v.map((s) => s.replaceAll("\0", "\uFFFD")));
            else expect(row.v).toEqual(want);
          },
        ),
        { numRuns: 150 },
      );
    }
    expect(() => new InlineValues().add(Number.NaN)).toThrow(/finite/);
  });
});

describe("listTaskJson pages given back", () => {
  it("reads every page right when each is given back before the next, and a filter of any text selects the same tasks", async () => {
    const db = await freshDb();
    const store = await open(db.url);
    const names = Array.from({ length: 23 }, (_, i) => `task ${i} ${"x".repeat(i * 37)}`);
    for (const [i, title] of names.entries())
      await store.createTask(newTask({ title, ...(i % 5 === 0 ? { id: `it's-${i}\\` } : {}) }), i);
    const seen: string[] = [];
    let after: number | undefined;
    for (;;) {
      const page = await store.listTaskJson({
        limit: 4,
        ...(after === undefined ? {} : { afterSeq: after }),
      });
      seen.push(...titles(page.json));
      page.release?.();
      if (page.count < 4 || page.lastSeq === null) break;
      after = page.lastSeq;
    }
    expect(seen).toEqual(names);
    const quoted = await store.listTaskJson({ limit: 100, ids: ["it's-5\\", "it's-10\\"], idPrefix: "it's" });
    expect(titles(quoted.json)).toEqual([names[5], names[10]]);
  });
});
