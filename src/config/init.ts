import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { formatDuration } from "../util/duration.js";
import { DEFAULT_GATE_TIMEOUT_MS } from "./defaults.js";
import type { GateConfig } from "./types.js";

/** What `npm init` writes as the test script; it fails on purpose, so it is not a real gate. */
const NPM_PLACEHOLDER_TEST = /no test specified/;

/**
 * Gates a repository already has, judged from its build files: npm `test`/`lint` scripts, a
 * Makefile `test:` target, Cargo, Go, pytest. When two tools offer a `test` gate, the later
 * one is named after its tool (`cargo-test`) so both are kept.
 */
export async function detectGates(repoRoot: string): Promise<GateConfig[]> {
  const found: { name: string; alt: string; run: string }[] = [];
  const scripts = await npmScripts(repoRoot);
  const test = scripts.test;
  if (test !== undefined && test.trim() !== "" && !NPM_PLACEHOLDER_TEST.test(test)) {
    found.push({ name: "test", alt: "npm-test", run: "npm test" });
  }
  if (scripts.lint !== undefined && scripts.lint.trim() !== "") {
    found.push({ name: "lint", alt: "npm-lint", run: "npm run lint" });
  }
  const makefile = await readText(join(repoRoot, "Makefile"));
  if (makefile !== undefined && /^test\s*:/m.test(makefile))
    found.push({ name: "test", alt: "make-test", run: "make test" });
  if (await exists(join(repoRoot, "Cargo.toml")))
    found.push({ name: "test", alt: "cargo-test", run: "cargo test" });
  if (await exists(join(repoRoot, "go.mod")))
    found.push({ name: "test", alt: "go-test", run: "go test ./..." });
  if ((await exists(join(repoRoot, "pyproject.toml"))) || (await exists(join(repoRoot, "pytest.ini")))) {
    found.push({ name: "test", alt: "pytest", run: "pytest" });
  }
  const taken = new Set<string>();
  return found.map((g) => {
    const name = taken.has(g.name) ? g.alt : g.name;
    taken.add(name);
    return { name, run: g.run, timeoutMs: DEFAULT_GATE_TIMEOUT_MS };
  });
}

async function npmScripts(repoRoot: string): Promise<Record<string, string | undefined>> {
  const text = await readText(join(repoRoot, "package.json"));
  if (text === undefined) return {};
  try {
    const pkg: unknown = JSON.parse(text);
    if (typeof pkg !== "object" || pkg === null || !("scripts" in pkg)) return {};
    const scripts = pkg.scripts;
    if (typeof scripts !== "object" || scripts === null) return {};
    return Object.fromEntries(
      Object.entries(scripts).filter((e): e is [string, string] => typeof e[1] === "string"),
    );
  } catch {
    // A broken package.json offers no gates; `fixpoint init` still writes a usable config.
    return {};
  }
}

async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch {
    return undefined;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** A KDL string literal; KDL v2 escapes control characters as `\u{…}`, not JSON's `\uXXXX`. */
export function kdlString(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\t") out += "\\t";
    else if (ch === "\r") out += "\\r";
    else if (code < 0x20 || code === 0x7f) out += `\\u{${code.toString(16)}}`;
    else out += ch;
  }
  return `${out}"`;
}

/**
 * The `fixpoint.kdl` that `fixpoint init` writes: the built-in defaults spelled out (so the file
 * reads back to exactly what fixpoint would do without it), the detected gates, and commented
 * examples of the optional sections.
 */
export function renderInitConfig(gates: readonly GateConfig[]): string {
  const gateLines =
    gates.length === 0
      ? ['// gate "test" run="npm test" timeout="10m"   // no test or lint command was found']
      : gates.map(
          (g) => `gate ${kdlString(g.name)} run=${kdlString(g.run)} timeout="${formatDuration(g.timeoutMs)}"`,
        );
  return `// fixpoint configuration; every key is described in docs/configuration.md.

// Agents: backend is one of claude-code, codex, pi, anthropic, openai, command, scripted.
agent "implementer" backend="claude-code" timeout="30m"
agent "reviewer" backend="claude-code" timeout="10m"   // e.g. backend="codex" model="gpt-5.1-codex"
agent "fixer" backend="claude-code" timeout="20m"

defaults {
    workflow "implement-review"
    max-cycles 3
    blocking-severity "P1"          // P0 and P1 findings block approval
    followups #false                // file non-blocking findings as follow-up issues
    findings-token-budget 6000
    // budget usd=10 tokens=4000000 // per task, all runs and retries included
    // base-branch "main"           // default: the current branch when a task is added
}

// Gates run in the task's worktree after every implement and fix stage.
${gateLines.join("\n")}

// Where state lives: "sqlite" (.fixpoint/fixpoint.db), a SQLite file, or "postgres://…".
database "sqlite"

// github repo="owner/name" allow-authors="alice" "bob" max-rework-cycles=2 comment-timeout="30s"
`;
}
