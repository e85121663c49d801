import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { renderInitConfig } from "../../src/config/init.js";
import { parseConfigText } from "../../src/config/parse.js";
import { FixpointError } from "../../src/errors.js";
import { parseFixReport } from "../../src/findings/fix-parse.js";
import { parseReviewOutput } from "../../src/findings/review-parse.js";
import { parseBotComment, parseBotReviewBody } from "../../src/github/bots/registry.js";
import { evaluateCondition } from "../../src/workflow/condition/evaluate.js";
import { parseCondition } from "../../src/workflow/condition/parser.js";
import { createFakeConditionEnv } from "../../src/workflow/fake-env.js";
import { parseWorkflow } from "../../src/workflow/parse.js";
import { deeplyNested, fuzzRuns, mutated, nasty, randomText } from "./fuzz-inputs.js";

/**
 * Every parser rejects every malformed input cleanly: a typed FixpointError (the parsers that
 * throw) or a failed result (the ones that return data) — never an untyped exception, never a
 * stack overflow. Bounded: each property runs a fixed number of cases (scaled up by
 * FIXPOINT_FAULT_SCALE in `npm run test:faults`).
 */

const WORKFLOWS_DIR = fileURLToPath(new URL("../../workflows/", import.meta.url));
const VALID_WORKFLOWS = readdirSync(WORKFLOWS_DIR)
  .filter((f) => f.endsWith(".kdl"))
  .map((f) => readFileSync(join(WORKFLOWS_DIR, f), "utf8"));

const VALID_CONDITIONS = [
  'verdict() == "NEEDS_DISCUSSION"',
  "blocking_open() == 0 && gates_passed()",
  "cycle() >= max_cycles() || !budget_left()",
  '!(outcome("gates") == "fail") && open("P1") < 3',
  'context("mode") != "fast" || -cycle() <= -2',
];

const VALID_CONFIGS = [
  renderInitConfig([]),
  `agent "reviewer" backend="command" command="node" "r.mjs" timeout="5m" { env { A "b" } }
gate "test" run="npm test" timeout="10m"
defaults {
  max-cycles 3
  budget usd=10 tokens=4000000
  redact-env "MY_TOKEN"
}
github repo="o/r" bots="coderabbit"
price "m" input=1.25 output=10`,
];

const review = (v: unknown) => `Review done.\n\n\`\`\`json\n${JSON.stringify(v, null, 2)}\n\`\`\`\n`;
const VALID_REVIEWS = [
  review({
    verdict: "CHANGES_REQUESTED",
    summary: "one problem",
    findings: [
      {
        severity: "P1",
        category: "correctness",
        title: "crash",
        body: "it crashes",
        file: "src/a.ts",
        line_start: 2,
        line_end: 3,
        suggested_fix: "check",
      },
    ],
    prior: [{ id: "F-1", status: "resolved", note: "ok" }],
  }),
  "Looks fine.\n\nVERDICT: APPROVED\n",
];
const VALID_FIXES = [
  review({
    summary: "fixed",
    findings: [
      { id: "F-1", status: "fixed", justification: "changed a.ts" },
      { id: "F-2", status: "blocked", justification: "needs a key", reason: "no credentials" },
    ],
  }),
];

/** Runs `fn`; passes when it returns or throws a FixpointError, fails on anything else. */
function rejectsCleanly(fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (e instanceof FixpointError) return;
    throw new Error(`untyped exception: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
}

const KDL_SYNTAX = '{}()=;#"/\\*-_.\nrwsage';
const JSON_SYNTAX = '{}[]:,"`\\\n0123456789.-+eEtruefalsnl';

describe("workflow KDL: every input parses or is rejected with a typed error", () => {
  it.each([
    ["random text", randomText(KDL_SYNTAX)],
    ["mutated valid workflows", mutated(VALID_WORKFLOWS, KDL_SYNTAX)],
    ["workflows with CRLF, NUL, lone surrogates, a BOM, or a megabyte long", nasty(VALID_WORKFLOWS)],
    ["deeply nested blocks", deeplyNested('workflow "w" { stage "s" kind="agent" ', "", "}")],
    [
      "deeply nested conditions",
      deeplyNested('workflow "w" {\nstage "d" kind="decision" {\nroute to="d" when="', "true", ")").map(
        (s) => `${s}"\n}\n}`,
      ),
    ],
  ])("%s", (_name, arb) => {
    fc.assert(
      fc.property(arb, (text) => rejectsCleanly(() => parseWorkflow(text, "w.kdl"))),
      { numRuns: fuzzRuns(150) },
    );
  });
});

describe("conditions: parseCondition never throws, and what it accepts evaluates without throwing", () => {
  const env = createFakeConditionEnv();
  const check = (text: string) => {
    const parsed = parseCondition(text);
    if (parsed.ok) expect(typeof evaluateCondition(parsed.condition, env)).toBe("boolean");
    else expect(parsed.offset).toBeGreaterThanOrEqual(0);
  };
  it.each([
    ["random text", randomText('()!&|=<>-",.0123456789')],
    ["mutated valid conditions", mutated(VALID_CONDITIONS, '()!&|=<>-",')],
    ["conditions with CRLF, NUL, lone surrogates, a BOM, or a megabyte long", nasty(VALID_CONDITIONS)],
    ["deep parentheses", deeplyNested("(", "true", ")")],
    ["long negation chains", deeplyNested("!", "true", "")],
    ["long minus chains", deeplyNested("-", "1", "")],
    [
      "long operator chains",
      fc.integer({ min: 100, max: 50_000 }).map((n) => Array(n).fill("true").join(" || ")),
    ],
    ["deep call nesting", deeplyNested("context(", '"x"', ")")],
  ])("%s", (_name, arb) => {
    fc.assert(fc.property(arb, check), { numRuns: fuzzRuns(150) });
  });
});

describe("config KDL: every input parses or is rejected with a typed error", () => {
  it.each([
    ["random text", randomText(KDL_SYNTAX)],
    ["mutated valid configs", mutated(VALID_CONFIGS, KDL_SYNTAX)],
    ["configs with CRLF, NUL, lone surrogates, a BOM, or a megabyte long", nasty(VALID_CONFIGS)],
    ["deeply nested blocks", deeplyNested("defaults { ", "", "}")],
  ])("%s", (_name, arb) => {
    fc.assert(
      fc.property(arb, (text) =>
        rejectsCleanly(() => parseConfigText(text, "/p/fixpoint.kdl", { home: "/h" })),
      ),
      { numRuns: fuzzRuns(150) },
    );
  });
});

describe("review JSON and fixer reports: never throw, always a result", () => {
  const nestedJson = (open: string, close: string) =>
    deeplyNested(open, "1", close).map((s) => `\`\`\`json\n{"verdict":"APPROVED","findings":${s}}\n\`\`\``);
  const arbs: [string, fc.Arbitrary<string>][] = [
    ["random text", randomText(JSON_SYNTAX)],
    ["mutated valid replies", mutated([...VALID_REVIEWS, ...VALID_FIXES], JSON_SYNTAX)],
    [
      "replies with CRLF, NUL, lone surrogates, a BOM, or a megabyte long",
      nasty([...VALID_REVIEWS, ...VALID_FIXES]),
    ],
    ["deeply nested JSON", nestedJson("[", "]")],
    ["deeply nested objects", nestedJson('{"a":', "}")],
  ];
  it.each(arbs)("review: %s", (_name, arb) => {
    fc.assert(
      fc.property(arb, fc.option(fc.jsonValue({ maxDepth: 4 })), (text, structured) => {
        const r = parseReviewOutput(text, structured ?? undefined);
        expect(typeof r.ok).toBe("boolean");
      }),
      { numRuns: fuzzRuns(150) },
    );
  });
  it.each(arbs)("fix report: %s", (_name, arb) => {
    fc.assert(
      fc.property(arb, fc.option(fc.jsonValue({ maxDepth: 4 })), (text, structured) => {
        const r = parseFixReport(text, structured ?? undefined);
        expect(typeof r.ok).toBe("boolean");
      }),
      { numRuns: fuzzRuns(150) },
    );
  });
});

describe("bot comments: never throw, never lose a comment, whatever bytes it holds", () => {
  const BOT_COMMENTS = [
    "_⚠️ Potential issue_ | _🟠 Major_\n\n**Null check missing.**\n\nThe value can be null.",
    "**<sub><sub>![P1 Badge](https://img.shields.io/badge/P1-orange?style=flat)</sub></sub>  Fix it**\n\nbody",
    "![high](https://www.gstatic.com/codereviewagent/high-priority.svg)\n\nThis leaks.",
    "### Bug: off by one\n\n**High Severity**\n\n<details><summary>x</summary>y</details>",
  ];
  const deep = fc.oneof(
    deeplyNested("<details><summary>s</summary>", "x", "</details>"),
    deeplyNested("> ", "**title**", ""),
    deeplyNested("<!-- ", "x", " -->"),
  );
  it.each([
    ["nasty bytes", nasty(BOT_COMMENTS)],
    ["deep nesting", deep],
  ])("%s", (_name, arb) => {
    fc.assert(
      fc.property(
        arb,
        fc.constantFrom("coderabbitai", "chatgpt-codex-connector", "cursor", "someone-else"),
        (body, author) => {
          const r = parseBotComment({ author, authorIsBot: true, body });
          if (r.finding) {
            expect(r.finding.title.length).toBeGreaterThan(0);
            expect(r.finding.title).not.toMatch(/[\n\r]/);
          }
          expect(Array.isArray(parseBotReviewBody({ author, authorIsBot: true, body }))).toBe(true);
        },
      ),
      { numRuns: fuzzRuns(40) },
    );
  });
});
