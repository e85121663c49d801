// The demo reviewers' knowledge: each check really runs the code in the worktree and says
// whether a defect is there. The fixer knows how to repair what each check describes.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

export const STATS = "src/stats.js";

async function load(cwd) {
  // A fresh URL each time so Node does not serve a cached module after the fixer changed it.
  return import(`${pathToFileURL(join(cwd, STATS)).href}?v=${Date.now()}${Math.random()}`);
}

function lineOf(cwd, needle) {
  const lines = readFileSync(join(cwd, STATS), "utf8").split("\n");
  const i = lines.findIndex((l) => l.includes(needle));
  return i < 0 ? 1 : i + 1;
}

export const CHECKS = [
  {
    key: "median-unsorted",
    owner: "review_code",
    severity: "P1",
    category: "correctness",
    title: "median() returns the wrong value for unsorted input",
    async defect(cwd) {
      const { median } = await load(cwd);
      const got = median([3, 1, 2]);
      return got === 2 ? null : `median([3, 1, 2]) returned ${got}, expected 2: the values are never sorted.`;
    },
    where: (cwd) => lineOf(cwd, "function median"),
    suggestedFix: "Sort a copy of the input numerically before taking the middle element(s).",
    repair(cwd) {
      const path = join(cwd, STATS);
      const src = readFileSync(path, "utf8").replace(
        "const xs = values;",
        "const xs = [...values].sort((a, b) => a - b);",
      );
      writeFileSync(path, src);
      return "median() now sorts a copy of its input numerically before picking the middle.";
    },
  },
  {
    key: "mean-empty",
    owner: "review_tests",
    severity: "P2",
    category: "edge-case",
    title: "mean([]) returns NaN instead of failing clearly",
    async defect(cwd) {
      const { mean } = await load(cwd);
      try {
        const got = mean([]);
        return `mean([]) returned ${got}; an empty list should throw a RangeError, and no test covers it.`;
      } catch (e) {
        return e instanceof RangeError ? null : `mean([]) threw ${e}, expected a RangeError.`;
      }
    },
    where: (cwd) => lineOf(cwd, "function mean"),
    suggestedFix: "Throw a RangeError for an empty list and add a test for it.",
    repair(cwd) {
      const path = join(cwd, STATS);
      const src = readFileSync(path, "utf8").replace(
        "export function mean(values) {\n",
        'export function mean(values) {\n  if (values.length === 0) throw new RangeError("mean of an empty list");\n',
      );
      writeFileSync(path, src);
      const testPath = join(cwd, "test/stats.test.js");
      writeFileSync(
        testPath,
        `${readFileSync(testPath, "utf8")}\ntest("mean of an empty list throws", () => {\n  assert.throws(() => mean([]), RangeError);\n});\n`,
      );
      return "mean() throws a RangeError for an empty list; test/stats.test.js covers it.";
    },
  },
];

/** The part of a fix prompt that lists the findings to answer for (not quoted reviews). */
export function findingsSection(prompt) {
  const start = prompt.lastIndexOf("Outstanding Review Findings");
  const section = start >= 0 ? prompt.slice(start) : prompt;
  return section.split("# Your report")[0] ?? section;
}

/** The finding ids and titles fixpoint listed in a prompt, e.g. lines naming `F-1`. */
export function idsInPrompt(prompt) {
  const out = [];
  for (const line of prompt.split("\n")) {
    const m = line.match(/\b(F-\d+)\b/);
    if (m && !out.some((x) => x.id === m[1])) out.push({ id: m[1], line });
  }
  return out;
}

/** Which check a listed finding is about: its title appears on the line or just below it. */
export function checkFor(prompt, id) {
  const i = prompt.indexOf(id);
  const window = i < 0 ? "" : prompt.slice(i, i + 600);
  return CHECKS.find((c) => window.includes(c.title));
}
