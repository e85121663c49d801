/**
 * Texts for the tests that hold a store's token hint (SQLite's migration 017, PostgreSQL's 009) to
 * redact.ts: a hint must find whatever a token shape can match, and whatever TOKEN_HINT finds with
 * `sk-` only where a token may start.
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { expect } from "vitest";
import { TOKEN_HINT, TOKEN_SHAPES, TOKEN_START } from "../../src/util/redact.js";

/** TOKEN_HINT's literals, each in its own case and in others (the SQL hint ignores case). */
const LITERALS = [
  "sk-",
  "ghp_",
  "gho_",
  "ghu_",
  "ghs_",
  "ghr_",
  "github_pat_",
  "xoxa-",
  "xoxb-",
  "xoxp-",
  "xoxo-",
  "xoxs-",
  "xoxr-",
  "eyJ",
  "-----BEGIN",
  "://",
  ..."KIA SIA GPA IDA ROA IPA NPA NVA BIA CCA".split(" ").map((s) => `A${s}`),
  "Bearer",
  "bearer",
  "BEARER",
  "Authorization",
  "AUTHORIZATION",
];
const anyCase = (s: string) =>
  fc
    .array(fc.boolean(), { minLength: s.length, maxLength: s.length })
    .map((up) => [...s].map((c, i) => (up[i] ? c.toUpperCase() : c.toLowerCase())).join(""));
/** Texts near the hint: literals whole, cut, in any case, between JSON-ish filler and near misses. */
export const text = fc
  .array(
    fc.oneof(
      fc.constantFrom(...LITERALS),
      fc.constantFrom(...LITERALS).chain(anyCase),
      fc.constantFrom(...LITERALS).map((s) => s.slice(0, -1)),
      fc.constantFrom('{"title":"', '","reason":', "\\n", "é", "🙂", " ", "_", "-", "gh", "xox", "A", "a"),
      fc.string({ maxLength: 6 }),
    ),
    { maxLength: 10 },
  )
  .map((a) => a.join(""));

/** TOKEN_HINT with `sk-` only where a token may start. */
export const HINT_AT_START = new RegExp(TOKEN_HINT.source.replace("sk-", `${TOKEN_START}sk-`));

/** Around and inside tokens: bodies long enough for every shape, contexts where one may start. */
export const tokenText = fc
  .array(
    fc.oneof(
      fc.constantFrom(...LITERALS),
      fc.constantFrom("sk-ant-", "sk-proj-", "github_pat_11AB_", "xoxb-1234-", "Authorization: Bearer "),
      fc.constantFrom(
        "abcdefghijklmnopqrstuvwxyz_-0123",
        "ABCDEFGHIJKLMNOP0123",
        "eyJhbGciOiJ.eyJzdWIiOiJ.sig",
        "u:secretpass@host",
        "-----BEGIN RSA PRIVATE KEY-----",
      ),
      fc.constantFrom(
        "a",
        "9",
        "\\n",
        "\\t",
        "\\u00e9",
        "\\u",
        " ",
        "_",
        "-",
        ".",
        "é",
        "🙂",
        "…",
        "...",
        "=",
      ),
      fc.string({ maxLength: 4 }),
    ),
    { maxLength: 8 },
  )
  .map((a) => a.join(""));

/**
 * Fails when TOKEN_HINT or the token shapes change: each store's hint was written for these, and
 * a new shape needs a migration in each store that replaces its hint and recomputes it.
 */
export function expectShapesTheHintsWereWrittenFor(): void {
  expect(TOKEN_HINT.source).toBe(
    String.raw`sk-|gh[pousr]_|github_pat_|xox[abposr]-|eyJ|-----BEGIN|:\/\/|A(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|BIA|CCA)|[Bb][Ee][Aa][Rr][Ee][Rr]|[Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz][Aa][Tt][Ii][Oo][Nn]`,
  );
  expect(TOKEN_HINT.flags).toBe("");
  const shapes = createHash("sha256")
    .update(TOKEN_SHAPES.map((r) => `${r.source}/${r.flags}`).join("\n"))
    .digest("hex");
  // Changed once without a migration: a URL's scheme bounded to 41 characters (a long `a-a-…`
  // run was read again from every word start). The shape finds less, and still only after `://`,
  // which the hint holds.
  expect(shapes).toBe("c2a6a274c44f3f7164a6519a0e713de9639924986c88b54e26e94fa4b7574850");
}
