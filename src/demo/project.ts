import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { runGitSync } from "../git/exec.js";

/** The package's demo agent scripts (plain ES modules, shipped in `demo/agents`). */
export const DEMO_AGENTS_DIR = fileURLToPath(new URL("../../demo/agents/", import.meta.url));

const GIT_ENV = {
  GIT_AUTHOR_NAME: "fixpoint demo",
  GIT_AUTHOR_EMAIL: "demo@localhost",
  GIT_COMMITTER_NAME: "fixpoint demo",
  GIT_COMMITTER_EMAIL: "demo@localhost",
};

/** A small real program in a new git repository on `main`: src/stats.js with `sum`, and a test. */
export function createDemoRepo(dir: string): void {
  mkdirSync(join(dir, "src"), { recursive: true });
  mkdirSync(join(dir, "test"), { recursive: true });
  writeFileSync(
    join(dir, "package.json"),
    `${JSON.stringify({ name: "stats-demo", private: true, type: "module", scripts: { test: "node --test" } }, null, 2)}\n`,
  );
  writeFileSync(
    join(dir, "src/stats.js"),
    "export function sum(values) {\n  return values.reduce((a, b) => a + b, 0);\n}\n",
  );
  writeFileSync(
    join(dir, "test/sum.test.js"),
    'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { sum } from "../src/stats.js";\n\ntest("sum", () => {\n  assert.equal(sum([1, 2, 3]), 6);\n});\n',
  );
  const git = (...args: string[]) => runGitSync(dir, args, { env: GIT_ENV });
  git("init", "-q", "-b", "main");
  git("add", "-A");
  git("commit", "-q", "-m", "stats: sum");
}

/**
 * The agents and defaults of a scripted fixpoint.kdl: `implementer`, `reviewer` and `fixer` run
 * `<agentsDir>/<role>.mjs` on the implement-review workflow, blocking at P2, at most `maxCycles`
 * fix cycles.
 */
export function scriptedAgentsConfig(agentsDir: string, maxCycles: number): string {
  const script = (name: string) => JSON.stringify(join(agentsDir, `${name}.mjs`));
  return `agent "implementer" backend="scripted" script=${script("implementer")} timeout="1m"
agent "reviewer"    backend="scripted" script=${script("reviewer")} timeout="1m"
agent "fixer"       backend="scripted" script=${script("fixer")} timeout="1m"

defaults {
    workflow "implement-review"
    max-cycles ${maxCycles}
    blocking-severity "P2"
}
`;
}

/** fixpoint.kdl for the demo: scripted agents doing real work, the program's own tests as the gate. */
export function demoConfig(agentsDir: string = DEMO_AGENTS_DIR): string {
  return `// fixpoint demo: scripted agents that do real work on real files.
${scriptedAgentsConfig(agentsDir, 3)}
gate "test" run="node --test" timeout="2m"
`;
}
