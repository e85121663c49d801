import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
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
