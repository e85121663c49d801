import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createDemoRepo } from "../../src/demo/project.js";
import { isolatedEnv, runCli, tempDir } from "../helpers/cli.js";

const TOKEN = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
const KEY = "sk-ant-api03-abcdefghijklmnop_qrstuvwxyz";

describe("secrets never reach events, the stage timeline or review artifacts", () => {
  it("redacts a token a reviewer echoes and a key in an agent's failure", () => {
    const root = tempDir();
    const repo = join(root, "repo");
    const env = isolatedEnv(root);
    createDemoRepo(repo);
    expect(runCli(["init"], { cwd: repo, env }).code).toBe(0);
    writeFileSync(join(repo, "impl.mjs"), "export default async (req) => ({ text: 'done' });\n");
    writeFileSync(
      join(repo, "review.mjs"),
      `export default async () => ({ text: "\`\`\`json\\n" + JSON.stringify({ verdict: "APPROVED", summary: "found ${TOKEN} in the config", findings: [], prior: [] }) + "\\n\`\`\`" });\n`,
    );
    writeFileSync(
      join(repo, "broken.mjs"),
      `export default async () => ({ fail: { kind: "auth", message: "auth failed with key ${KEY}" } });\n`,
    );
    writeFileSync(
      join(repo, "fixpoint.kdl"),
      'agent "implementer" backend="scripted" script="./impl.mjs"\nagent "reviewer" backend="scripted" script="./review.mjs"\nagent "fixer" backend="scripted" script="./impl.mjs"\nagent "broken" backend="scripted" script="./broken.mjs"\n',
    );
    expect(runCli(["add", "ok task"], { cwd: repo, env }).code).toBe(0);
    expect(runCli(["add", "failing task", "--agent", "broken"], { cwd: repo, env }).code).toBe(0);
    runCli(["work"], { cwd: repo, env });

    const reviews = join(repo, ".fixpoint/reviews");
    const artifacts = readdirSync(reviews)
      .map((f) => readFileSync(join(reviews, f), "utf8"))
      .join("\n");
    expect(artifacts).toContain("[REDACTED]");
    expect(artifacts).not.toContain(TOKEN);

    const show = runCli(["show", "t-2", "--json"], { cwd: repo, env }).stdout;
    const logs = runCli(["logs", "t-2", "--json"], { cwd: repo, env }).stdout;
    expect(show).toContain("auth failed with key");
    for (const text of [show, logs]) expect(text).not.toContain(KEY);
  });
});

describe("status prints no secret a stored row holds", () => {
  it("hides a secret value on a token-free page, and a token in a row written without redaction", () => {
    const root = tempDir();
    const repo = join(root, "repo");
    createDemoRepo(repo);
    const secretValue = "deploy-value-4711-kept-in-env";
    expect(runCli(["init"], { cwd: repo, env: isolatedEnv(root) }).code).toBe(0);
    for (const title of ["first task", "second task", `ship it with ${secretValue}`])
      expect(runCli(["add", title], { cwd: repo, env: isolatedEnv(root) }).code).toBe(0);
    const env = isolatedEnv(root, { GITHUB_TOKEN: secretValue });
    const titles = () => {
      const r = runCli(["status", "--json"], { cwd: repo, env });
      expect(r.code).toBe(0);
      return (JSON.parse(r.stdout) as { title: string }[]).map((t) => t.title);
    };

    // No text here holds a token's literal, so the page skips the token scan: the value of a
    // secret variable of the printing process is still hidden.
    expect(titles()).toEqual(["first task", "second task", "ship it with [REDACTED]"]);

    // As a row stored before redaction existed would hold it (a hand edit bypasses every write net).
    const db = new Database(join(repo, ".fixpoint", "fixpoint.db"));
    db.prepare("UPDATE tasks SET title = ? WHERE id = 't-1'").run(`leaked ${TOKEN}`);
    db.close();
    expect(titles()).toEqual(["leaked [REDACTED]", "second task", "ship it with [REDACTED]"]);
    const table = runCli(["status"], { cwd: repo, env }).stdout;
    expect(table).toContain("leaked");
    expect(table).not.toContain(TOKEN);
    expect(table).not.toContain(secretValue);
  });
});
