import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { DiagnosticsError, FixpointError, formatDiagnostic } from "../errors.js";
import { loadConfig } from "./load.js";

let root: string;
let home: string;
let project: string;
let userFile: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "fixpoint-config-"));
  home = join(root, "home");
  project = join(root, "project");
  userFile = join(home, ".config", "fixpoint", "config.kdl");
  await mkdir(project, { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function write(path: string, text: string): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  await writeFile(path, text);
}

const load = (env: NodeJS.ProcessEnv = {}, flags = {}) =>
  loadConfig({ projectRoot: project, env: { HOME: home, ...env }, flags, cwd: root });

async function rejection(promise: Promise<unknown>): Promise<FixpointError> {
  const e = await promise.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof FixpointError)) throw new Error(`expected a FixpointError, got ${String(e)}`);
  return e;
}

describe("loadConfig layering", () => {
  test("with no files, the built-in defaults", async () => {
    const c = await load();
    expect(c.agents).toEqual({
      implementer: { name: "implementer", backend: "claude-code", timeoutMs: 1_800_000, args: [], env: {} },
      reviewer: { name: "reviewer", backend: "claude-code", timeoutMs: 600_000, args: [], env: {} },
      fixer: { name: "fixer", backend: "claude-code", timeoutMs: 1_200_000, args: [], env: {} },
    });
    expect(c.defaults).toEqual({
      workflow: "implement-review",
      maxCycles: 3,
      blockingSeverity: "P1",
      budget: {},
      followups: false,
      findingsTokenBudget: 6000,
    });
    expect(c.gates).toEqual([]);
    expect(c.database).toEqual({ url: "sqlite" });
    expect(c.worktrees).toBe(join(home, ".fixpoint", "worktrees"));
    expect(c.github).toBeNull();
    expect(c.sources).toEqual([]);
  });

  test("user < project < environment < flags, field by field", async () => {
    await write(
      userFile,
      'defaults {\n max-cycles 5\n workflow "user-wf"\n blocking-severity "P2"\n followups #true\n}\ndatabase "postgres://u@h/db"',
    );
    await write(join(project, "fixpoint.kdl"), 'defaults {\n max-cycles 7\n workflow "project-wf"\n}');
    const files = await load();
    expect(files.defaults).toMatchObject({
      maxCycles: 7,
      workflow: "project-wf",
      blockingSeverity: "P2",
      followups: true,
    });
    expect(files.database.url).toBe("postgres://u@h/db");
    expect(files.sources).toEqual([userFile, join(project, "fixpoint.kdl")]);

    const withEnv = await load({ FIXPOINT_MAX_CYCLES: "9", FIXPOINT_DATABASE_URL: "sqlite" });
    expect(withEnv.defaults).toMatchObject({ maxCycles: 9, workflow: "project-wf" });
    expect(withEnv.database.url).toBe("sqlite");

    const withFlags = await load(
      { FIXPOINT_MAX_CYCLES: "9" },
      { maxCycles: 2, blockingSeverity: "critical" },
    );
    expect(withFlags.defaults).toMatchObject({
      maxCycles: 2,
      blockingSeverity: "P0",
      workflow: "project-wf",
    });
  });

  test("redact-env names add up across the user and project files", async () => {
    await write(userFile, 'defaults {\n redact-env "DEPLOY_KEY"\n}');
    await write(join(project, "fixpoint.kdl"), 'defaults {\n redact-env "MY_TOKEN" "DEPLOY_KEY"\n}');
    expect((await load()).defaults.redactEnv).toEqual(["DEPLOY_KEY", "MY_TOKEN"]);
  });

  test("the budget merges per field: file usd, environment tokens, flag usd", async () => {
    await write(join(project, "fixpoint.kdl"), "defaults {\n budget usd=10 tokens=100\n}");
    const c = await load({ FIXPOINT_BUDGET_TOKENS: "4000000" }, { budgetUsd: 2.5, workflow: "flagged" });
    expect(c.defaults.budget).toEqual({ usd: 2.5, tokens: 4_000_000 });
    expect(c.defaults.workflow).toBe("flagged");
  });

  test("agents and gates merge by name; a later layer changes only what it sets", async () => {
    await write(
      userFile,
      'agent "reviewer" backend="codex" model="gpt-5.1-codex" { env { A "1"; } }\ngate "test" run="make test" timeout="3m"',
    );
    await write(
      join(project, "fixpoint.kdl"),
      'agent "reviewer" timeout="2m"\ngate "test" run="npm test"\ngate "lint" run="npm run lint"',
    );
    const c = await load();
    expect(c.agents.reviewer).toEqual({
      name: "reviewer",
      backend: "codex",
      model: "gpt-5.1-codex",
      timeoutMs: 120_000,
      args: [],
      env: { A: "1" },
    });
    expect(c.agents.implementer?.backend).toBe("claude-code");
    expect(c.gates).toEqual([
      { name: "test", run: "npm test", timeoutMs: 180_000 },
      { name: "lint", run: "npm run lint", timeoutMs: 600_000 },
    ]);
  });

  test("XDG_CONFIG_HOME and FIXPOINT_USER_CONFIG move the user file; FIXPOINT_HOME moves worktrees", async () => {
    const xdgFile = join(root, "xdg", "fixpoint", "config.kdl");
    await write(xdgFile, 'defaults { workflow "from-xdg"; }');
    const xdg = await load({ XDG_CONFIG_HOME: join(root, "xdg"), FIXPOINT_HOME: join(root, "fp") });
    expect(xdg.defaults.workflow).toBe("from-xdg");
    expect(xdg.worktrees).toBe(join(root, "fp", "worktrees"));

    const named = join(root, "elsewhere.kdl");
    await write(named, 'defaults { workflow "named"; }');
    expect((await load({ FIXPOINT_USER_CONFIG: named })).defaults.workflow).toBe("named");
    const missing = await rejection(load({ FIXPOINT_USER_CONFIG: join(root, "nope.kdl") }));
    expect(missing.code).toBe("config");
    expect(missing.message).toContain("nope.kdl");
  });

  test("worktrees: file value (with ~) beats FIXPOINT_HOME; FIXPOINT_WORKTREES beats the file", async () => {
    await write(join(project, "fixpoint.kdl"), 'worktrees "~/trees"');
    expect((await load({ FIXPOINT_HOME: join(root, "fp") })).worktrees).toBe(join(home, "trees"));
    expect((await load({ FIXPOINT_WORKTREES: "rel/trees" })).worktrees).toBe(join(root, "rel", "trees"));
  });

  test("relative script and command paths are resolved against the file that names them", async () => {
    await write(userFile, 'agent "u" backend="scripted" script="./mine.mjs"');
    await write(
      join(project, "fixpoint.kdl"),
      'agent "p" backend="scripted" script="agents/impl.mjs"\nagent "c" backend="command" { command "./bin/agent" "--fast" "../shared/x.mjs"; }\nagent "n" backend="command" command="node"',
    );
    const c = await load();
    expect(c.agents.u?.script).toBe(join(dirname(userFile), "mine.mjs"));
    expect(c.agents.p?.script).toBe(join(project, "agents", "impl.mjs"));
    expect(c.agents.c?.command).toEqual([
      join(project, "bin", "agent"),
      "--fast",
      join(root, "shared", "x.mjs"),
    ]);
    expect(c.agents.n?.command).toEqual(["node"]);
  });

  test("github fills unset fields with defaults", async () => {
    await write(userFile, 'github { bots "cr[bot]"; }');
    await write(join(project, "fixpoint.kdl"), 'github repo="acme/shop" allow-authors="alice" "bob"');
    expect((await load()).github).toEqual({
      repo: "acme/shop",
      allowAuthors: ["alice", "bob"],
      bots: ["cr[bot]"],
      maxReworkCycles: 2,
      commentTimeoutMs: 30_000,
      label: "fixpoint",
      techDebtLabel: "tech-debt",
      resolveHumanThreads: false,
      draft: false,
      waitForReview: false,
    });
  });
});

describe("loadConfig errors", () => {
  test("problems in both files are reported together with file:line:column", async () => {
    await write(userFile, "defaults {\n  max-cycels 2\n}");
    await write(join(project, "fixpoint.kdl"), 'agent "x" backend="codexx"');
    const e = await rejection(load());
    expect(e).toBeInstanceOf(DiagnosticsError);
    expect(e.exitCode).toBe(2);
    expect(e instanceof DiagnosticsError ? e.diagnostics.map(formatDiagnostic) : []).toEqual([
      `${userFile}:2:3: unknown field \`max-cycels\` in \`defaults\` (did you mean \`max-cycles\`?)`,
      `${join(project, "fixpoint.kdl")}:1:19: \`backend\` must be one of command, scripted, claude-code, codex, pi, anthropic, openai, got "codexx" (did you mean \`codex\`?)`,
    ]);
  });

  test("incomplete items after merging point at the node that defined them", async () => {
    await write(
      join(project, "fixpoint.kdl"),
      '\nagent "new" model="m"\ngate "g" timeout="1m"\nagent "cmd" backend="command"',
    );
    const e = await rejection(load());
    const where = e instanceof DiagnosticsError ? e.diagnostics.map(formatDiagnostic) : [];
    const file = join(project, "fixpoint.kdl");
    expect(where).toEqual([
      `${file}:2:1: agent "new" needs a backend, e.g. backend="claude-code"`,
      `${file}:4:1: agent "cmd" uses backend "command" and needs \`command "program" "arg"…\``,
      `${file}:3:1: gate "g" needs run="…" (a shell command)`,
    ]);
  });

  test("a bad environment value names the variable", async () => {
    const e = await rejection(load({ FIXPOINT_MAX_CYCLES: "three", FIXPOINT_BLOCKING_SEVERITY: "P7" }));
    expect(e.code).toBe("config");
    expect(e.message).toBe(
      'FIXPOINT_MAX_CYCLES must be a whole number ≥ 1, got "three"\nFIXPOINT_BLOCKING_SEVERITY must be a severity: P0, P1, P2, P3 (or critical, high, medium, low), got "P7"',
    );
    expect((await rejection(load({ FIXPOINT_DATABASE_URL: "mysql://x" }))).message).toContain(
      "FIXPOINT_DATABASE_URL",
    );
    expect((await rejection(load({ FIXPOINT_SPAWN_HELPER: "yes" }))).message).toBe(
      'FIXPOINT_SPAWN_HELPER must be 0 (start agents and git from this process) or 1 (always from the helper process), got "yes"',
    );
    await expect(load({ FIXPOINT_SPAWN_HELPER: "0" })).resolves.toBeDefined();
    expect((await rejection(load({ FIXPOINT_NATIVE_ROWS: "off" }))).message).toBe(
      'FIXPOINT_NATIVE_ROWS must be 0 (write a PostgreSQL store\'s `status` rows in JavaScript) or 1 (with the native addons, where built), got "off"',
    );
    await expect(load({ FIXPOINT_NATIVE_ROWS: "0" })).resolves.toBeDefined();
  });

  test("a FIXPOINT_ variable one typo from a known one is an error; unrelated ones are ignored", async () => {
    const e = await rejection(load({ FIXPOINT_MAX_CYCLE: "2" }));
    expect(e.message).toBe(
      "unknown environment variable FIXPOINT_MAX_CYCLE (did you mean FIXPOINT_MAX_CYCLES?)",
    );
    expect((await rejection(load({ FIXPOINT_DATABSE_URL: "sqlite" }))).message).toContain(
      "FIXPOINT_DATABASE_URL",
    );
    await expect(
      load({ FIXPOINT_SOMETHING_ELSE_ENTIRELY: "1", FIXPOINT_HOME: join(root, "h") }),
    ).resolves.toBeDefined();
  });

  test("a bad flag is a usage error naming the flag", async () => {
    const e = await rejection(load({}, { maxCycles: 0, budgetUsd: -1 }));
    expect(e.code).toBe("usage");
    expect(e.message).toContain("--max-cycles must be a whole number ≥ 1, got 0");
    expect(e.message).toContain("--budget-usd must be a number ≥ 0, got -1");
  });
});
