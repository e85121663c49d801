import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { createDemoRepo } from "../../src/demo/project.js";
import { git, isolatedEnv, runCli, tempDir } from "../helpers/cli.js";

describe("bad input gets a clear error and loses nothing", () => {
  let root: string;
  let repo: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    root = tempDir();
    repo = join(root, "repo");
    env = isolatedEnv(root);
    createDemoRepo(repo);
    const init = runCli(["init"], { cwd: repo, env });
    expect(init.stderr).toBe("");
    expect(init.code).toBe(0);
  });

  it("`fixpoint add` outside a git repository: exit 2, one sentence, no stack trace", () => {
    const outside = join(root, "not-a-repo");
    mkdirSync(outside);
    const r = runCli(["add", "do something"], { cwd: outside, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^fixpoint: .*not inside a git repository/);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  it("malformed fixpoint.kdl names file:line:column and nothing is queued", () => {
    const path = join(repo, "fixpoint.kdl");
    const good = readFileSync(path, "utf8");
    writeFileSync(path, 'defaults {\n    max-cycles 3\n    workflow "implement-review\n}\n');
    const r = runCli(["add", "x"], { cwd: repo, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}:`);
    expect(r.stderr).toMatch(/fixpoint\.kdl:\d+:\d+: /);
    writeFileSync(path, good);
    expect(JSON.parse(runCli(["status", "--json"], { cwd: repo, env }).stdout)).toEqual([]);
  });

  it("an unknown config key says where and suggests the right one", () => {
    const path = join(repo, "fixpoint.kdl");
    const good = readFileSync(path, "utf8");
    writeFileSync(path, "defaults {\n    max-cycle 3\n}\n");
    const r = runCli(["status"], { cwd: repo, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${path}:2:5:`);
    expect(r.stderr).toContain("did you mean `max-cycles`");
    writeFileSync(path, good);
  });

  it("`workflows validate` reports every problem with file:line:column and exits 2", () => {
    const file = join(root, "bad.kdl");
    writeFileSync(
      file,
      'workflow "w" {\n    start "a"\n    stage "a" kind="agnet"\n    stage "b" kind="decision" {\n        route to="a" when="cycle( >= 1"\n    }\n}\n',
    );
    const r = runCli(["workflows", "validate", file], { cwd: repo, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}:3:\\d+: .*agnet`));
    expect(r.stderr).toContain("did you mean `agent`");
  });

  it("a workflow no run can finish within max-stages is refused by add, naming the limit and its key; nothing is queued", () => {
    const config = join(repo, "fixpoint.kdl");
    const good = readFileSync(config, "utf8");
    const stages = Array.from({ length: 6 }, (_, i) => `    stage "s${i}" kind="agent" agent="implementer"`);
    const moves = Array.from(
      { length: 6 },
      (_, i) => `    transition from="s${i}" to="${i < 5 ? `s${i + 1}` : "done"}"`,
    );
    const body = `    start "s0"\n${stages.join("\n")}\n    stage "done" kind="exit"\n${moves.join("\n")}\n}\n`;
    const dir = join(repo, ".fixpoint", "workflows");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "six.kdl"), `workflow "six" {\n${body}`);
    writeFileSync(config, good.replace(/defaults \{\n/, "defaults {\n    max-stages 5\n"));
    try {
      const r = runCli(["add", "six stages", "--workflow", "six"], { cwd: repo, env });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain("workflow six cannot finish within max-stages=5");
      expect(r.stderr).toContain("runs 6 stages");
      expect(r.stderr).toContain("raise `defaults max-stages`");
      expect(r.stderr).not.toMatch(/\n\s+at /);
      expect(JSON.parse(runCli(["status", "--json"], { cwd: repo, env }).stdout)).toEqual([]);

      // The workflow's own limit wins over the defaults' and is the key the message names.
      writeFileSync(join(dir, "six.kdl"), `workflow "six" max-stages=4 {\n${body}`);
      const own = runCli(["add", "six stages", "--workflow", "six"], { cwd: repo, env });
      expect(own.code).toBe(2);
      expect(own.stderr).toContain('raise `workflow "six" max-stages`');

      writeFileSync(join(dir, "six.kdl"), `workflow "six" max-stages=6 {\n${body}`);
      const fits = runCli(["add", "six stages", "--workflow", "six"], { cwd: repo, env });
      expect(fits.stderr).toBe("");
      expect(fits.code).toBe(0);
      expect(runCli(["cancel", fits.stdout.trim().split(/\s+/)[1] ?? ""], { cwd: repo, env }).code).toBe(0);
    } finally {
      writeFileSync(config, good);
    }
  });

  it("an unknown task, an unknown command and a bad flag are usage errors (exit 2)", () => {
    expect(runCli(["show", "t-999"], { cwd: repo, env }).code).toBe(2);
    expect(runCli(["frobnicate"], { cwd: repo, env }).code).toBe(2);
    const r = runCli(["add", "x", "--max-cycles", "many"], { cwd: repo, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--max-cycles takes a whole number");
    // Below a flag's least value: said as the CLI says it, not as a use case's schema would.
    for (const [args, said] of [
      [["work", "--concurrency", "0"], "--concurrency takes a whole number ≥ 1, not `0`"],
      [["edit", "t-1", "--max-cycles", "0"], "--max-cycles takes a whole number ≥ 1, not `0`"],
      [["work", "--lease-ms", "5"], "--lease-ms takes a whole number ≥ 100, not `5`"],
    ] as const) {
      const low = runCli([...args], { cwd: repo, env });
      expect(low.code).toBe(2);
      expect(low.stderr).toBe(`fixpoint: ${said}\n`);
    }
  });

  it("a database the store cannot be is named as the flag or the variable that gave it (exit 2)", () => {
    const flag = runCli(["--database", "mysql://db/x", "status"], { cwd: repo, env });
    expect(flag.code).toBe(2);
    expect(flag.stderr).toBe(
      'fixpoint: --database: unsupported database "mysql://db/x": use "sqlite", a SQLite file path, or "postgres://…"\n',
    );
    const variable = runCli(["status"], { cwd: repo, env: { ...env, FIXPOINT_DATABASE_URL: "tasks.txt" } });
    expect(variable.code).toBe(2);
    expect(variable.stderr).toContain(
      'FIXPOINT_DATABASE_URL must be "sqlite", the path of a SQLite file ending in .db, or a postgres:// URL, got "tasks.txt"',
    );
  });

  it("`--help` explains the commands", () => {
    const r = runCli(["--help"], { cwd: repo, env });
    expect(r.code).toBe(0);
    for (const cmd of [
      "init",
      "add",
      "work",
      "status",
      "show",
      "findings",
      "logs",
      "resume",
      "retry",
      "cancel",
      "edit",
      "approve",
      "reject",
      "workflows",
      "clean",
    ]) {
      expect(r.stdout).toContain(cmd);
    }
  });

  it("a dirty main checkout is left untouched by add and work", () => {
    writeFileSync(join(repo, "src/stats.js"), "// my local edit\n", { flag: "a" });
    writeFileSync(join(repo, "scratch.txt"), "untracked\n");
    const before = {
      status: git(repo, "status", "--porcelain"),
      stats: readFileSync(join(repo, "src/stats.js"), "utf8"),
      head: git(repo, "rev-parse", "HEAD"),
    };
    writeFileSync(
      join(repo, ".fixpoint-agent.mjs"),
      "export default async (req) => { const fs = await import('node:fs'); fs.writeFileSync(req.cwd + '/out.txt', 'x'); return { text: 'ok' }; };\n",
    );
    const kdl = readFileSync(join(repo, "fixpoint.kdl"), "utf8");
    writeFileSync(
      join(repo, "fixpoint.kdl"),
      `agent "implementer" backend="scripted" script="./.fixpoint-agent.mjs"\n`,
    );
    expect(runCli(["add", "touch a file", "--no-review"], { cwd: repo, env }).code).toBe(0);
    const w = runCli(["work"], { cwd: repo, env });
    expect(w.stdout).toContain("APPROVED");
    expect(readFileSync(join(repo, "src/stats.js"), "utf8")).toBe(before.stats);
    expect(git(repo, "rev-parse", "HEAD")).toBe(before.head);
    const statusAfter = git(repo, "status", "--porcelain");
    // Only the files this test itself created differ (fixpoint.kdl edit and the agent script).
    expect(
      statusAfter
        .split("\n")
        .filter((l) => l && !/fixpoint\.kdl|\.fixpoint-agent\.mjs/.test(l))
        .sort(),
    ).toEqual(
      before.status
        .split("\n")
        .filter((l) => l && !/fixpoint\.kdl|\.fixpoint-agent\.mjs/.test(l))
        .sort(),
    );
    writeFileSync(join(repo, "fixpoint.kdl"), kdl);
  });
});
