import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createDemoRepo } from "../../src/demo/project.js";
import { git, isolatedEnv, runCli } from "../helpers/cli.js";
import { makeTempDir } from "../helpers/temp.js";

/**
 * SPEC §13 as a property, through the real binary: a secret planted in every agent's and every
 * gate's output — a token of any documented shape, or the value of a variable the config names in
 * `redact-env` — never appears in the database, in any file under `.fixpoint/` or fixpoint's home,
 * in a commit message, or in what any command prints.
 */

const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".split("");
const body = (min: number, max: number) =>
  fc.string({ unit: fc.constantFrom(...ALNUM), minLength: min, maxLength: max });

const secretArb = fc.oneof(
  body(36, 40).map((t) => `ghp_${t}`),
  body(30, 40).map((t) => `github_pat_11AB_${t}`),
  body(30, 40).map((t) => `sk-ant-api03-${t}`),
  body(30, 40).map((t) => `sk-proj-${t}`),
  fc
    .string({
      unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".split("")),
      minLength: 16,
      maxLength: 16,
    })
    .map((t) => `AKIA${t}`),
  body(20, 30).map((t) => `xoxb-1234-${t}`),
  body(16, 24).map((t) => `env-${t}`), // a value only the config's redact-env knows
);

function filesUnder(dir: string): string[] {
  let out: string[] = [];
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return out;
  }
  for (const name of entries) {
    const p = join(dir, name);
    const st = statSync(p);
    if (st.isDirectory()) out = out.concat(filesUnder(p));
    else if (st.isFile()) out.push(p);
  }
  return out;
}

function agentScripts(repo: string): void {
  const S = "process.env.PLANTED";
  writeFileSync(
    join(repo, "impl.mjs"),
    `import { appendFileSync } from "node:fs";
export default async (req) => { appendFileSync(req.cwd + "/src/stats.js", "// x\\n"); return { text: "implemented, key " + ${S} }; };\n`,
  );
  writeFileSync(
    join(repo, "review.mjs"),
    `let n = 0;
export default async (req) => {
  n += 1;
  const ids = [...req.prompt.matchAll(/^(F-\\d+) \\|/gm)].map((m) => m[1]);
  const review = n <= 3
    ? { verdict: "CHANGES_REQUESTED", summary: "summary " + ${S}, findings: [{ severity: "P1", category: "security", title: "leaks " + ${S}, body: "the log shows " + ${S} + " " + "y".repeat(n * 300), file: "src/stats.js", line_start: 1, line_end: 1, suggested_fix: "rotate " + ${S} }], prior: [] }
    : { verdict: "APPROVED", summary: "ok " + ${S}, findings: [], prior: ids.map((id) => ({ id, status: "resolved", note: "gone " + ${S} })) };
  return { text: "review " + ${S} + "\\n\`\`\`json\\n" + JSON.stringify(review) + "\\n\`\`\`" };
};\n`,
  );
  writeFileSync(
    join(repo, "fix.mjs"),
    `import { appendFileSync } from "node:fs";
export default async (req) => {
  appendFileSync(req.cwd + "/src/stats.js", "// fixed\\n");
  const ids = [...new Set([...req.prompt.matchAll(/^#{3,4} (F-\\d+) (?:·|\\[)/gm)].map((m) => m[1]))];
  const report = { summary: "fixed " + ${S}, findings: ids.map((id) => ({ id, status: "fixed", justification: "changed src/stats.js line 1 to stop printing " + ${S} })) };
  return { text: "done " + ${S} + "\\n\`\`\`json\\n" + JSON.stringify(report) + "\\n\`\`\`" };
};\n`,
  );
  // The gate fails with the secret at a random distance from the tail cut, on both streams.
  writeFileSync(
    join(repo, "gate.mjs"),
    `const pad = "z".repeat(Number(process.env.PAD));
process.stdout.write(pad + " error: token " + ${S} + "\\n");
process.stderr.write("Error: Authorization: Bearer " + ${S} + " rejected\\n" + pad.slice(0, 3000) + ${S});
process.exit(1);\n`,
  );
}

describe("redaction property: no planted secret escapes, through the real fixpoint binary", () => {
  it("holds for random secrets at random offsets in every agent's and gate's output", () => {
    fc.assert(
      fc.property(secretArb, fc.integer({ min: 0, max: 6000 }), (secret, pad) => {
        const root = makeTempDir("redact-prop-");
        const repo = join(root, "repo");
        const env = isolatedEnv(root, { PLANTED: secret, DEPLOY_PHRASE: secret, PAD: String(pad) });
        createDemoRepo(repo);
        expect(runCli(["init"], { cwd: repo, env }).code).toBe(0);
        agentScripts(repo);
        writeFileSync(
          join(repo, "fixpoint.kdl"),
          `agent "implementer" backend="scripted" script="./impl.mjs"
agent "reviewer" backend="scripted" script="./review.mjs"
agent "fixer" backend="scripted" script="./fix.mjs"
gate "leaky" run="node ${JSON.stringify(join(repo, "gate.mjs")).slice(1, -1)}"
defaults {
  max-cycles 1
  redact-env "DEPLOY_PHRASE"
}
`,
        );
        expect(runCli(["add", "plant secrets"], { cwd: repo, env }).code).toBe(0);
        const outputs = [runCli(["work"], { cwd: repo, env })];
        for (const args of [
          ["status"],
          ["show", "t-1"],
          ["show", "t-1", "--json"],
          ["findings", "t-1"],
          ["findings", "t-1", "--json"],
          ["logs", "t-1"],
          ["logs", "t-1", "--json"],
        ]) {
          outputs.push(runCli(args, { cwd: repo, env }));
        }
        const findings = outputs[5]?.stdout ?? "";
        expect(findings).toContain("[REDACTED]"); // the findings really carry the planted text
        for (const o of outputs) {
          expect(o.stdout).not.toContain(secret);
          expect(o.stderr).not.toContain(secret);
        }
        const files = [...filesUnder(join(repo, ".fixpoint")), ...filesUnder(join(root, "fixpoint-home"))];
        expect(files.some((f) => f.endsWith("fixpoint.db"))).toBe(true);
        for (const f of files) {
          if (f.includes(`${join("fixpoint-home", "worktrees")}`)) continue; // the agents' checkouts
          expect(readFileSync(f).toString("latin1"), f).not.toContain(secret);
        }
        expect(git(repo, "log", "--all", "--format=%B")).not.toContain(secret);
      }),
      { numRuns: Number(process.env.FIXPOINT_REDACTION_RUNS ?? 3) },
    );
  }, 300_000);
});
