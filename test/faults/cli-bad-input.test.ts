import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { createDemoRepo } from "../../src/demo/project.js";
import { isolatedEnv, runCli } from "../helpers/cli.js";
import { makeTempDir } from "../helpers/temp.js";
import { fuzzRuns, mutated, nasty, randomText } from "./fuzz-inputs.js";

/**
 * Through the real binary: a malformed workflow or condition is a usage error (exit 2) with one
 * `file:line:column: message` per problem and no stack trace — never exit 1, never a crash.
 */

const WORKFLOWS_DIR = fileURLToPath(new URL("../../workflows/", import.meta.url));
const VALID = readdirSync(WORKFLOWS_DIR)
  .filter((f) => f.endsWith(".kdl"))
  .map((f) => readFileSync(join(WORKFLOWS_DIR, f), "utf8"));

const decision = (when: string) =>
  `workflow "w" {\n    start "d"\n    stage "d" kind="decision" {\n        route to="done" when="${when}"\n    }\n    stage "done" kind="exit"\n}\n`;

describe("bad workflows and bad conditions exit 2 through the CLI", () => {
  let root: string;
  let repo: string;
  let env: NodeJS.ProcessEnv;

  beforeAll(() => {
    root = makeTempDir("bad-wf-");
    repo = join(root, "repo");
    env = isolatedEnv(root);
    createDemoRepo(repo);
    expect(runCli(["init"], { cwd: repo, env }).code).toBe(0);
  });

  function validate(text: string): { code: number | null; stderr: string; file: string } {
    const file = join(root, "w.kdl");
    writeFileSync(file, text);
    const r = runCli(["workflows", "validate", file], { cwd: repo, env });
    return { code: r.code, stderr: r.stderr, file };
  }

  it("a condition nested past the depth limit: exit 2 at file:line:column, no stack overflow", () => {
    const r = validate(decision(`${"(".repeat(5000)}true${")".repeat(5000)}`.slice(0, 4000)));
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${r.file}:4:`);
    expect(r.stderr).toMatch(/nested more than \d+ levels deep/);
    expect(r.stderr).not.toMatch(/Maximum call stack|\n\s+at /);
    const chain = validate(decision(Array(200).fill("true").join(" || ")));
    expect(chain.code).toBe(2);
    expect(chain.stderr).toMatch(/w\.kdl:4:\d+: .*operands/);
  });

  it("a megabyte workflow with a string left open over every line: exit 2 at the first error, one message", () => {
    const text = `workflow "w" {\n    stage "s" kind="agent" prompt=#"implement\n${'    stage "x" kind="exit"\n'.repeat(40_000)}"#\n}\n`;
    const r = validate(text);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      `${r.file}:2:46: invalid KDL: raw strings with single quotes cannot contain unescaped newlines`,
    );
    expect(r.stderr).toContain("(40001 errors like this in the string that starts at 2:35)");
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("a megabyte workflow with a problem on each of its lines: the first hundred listed, the rest counted", () => {
    const text = `workflow "w" {\n    start "s"\n    stage "s" kind="exit"\n${'    stage "s" kind="exit"\n'.repeat(40_000)}}\n`;
    const r = validate(text);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`${r.file}:4:5: `);
    expect(
      r.stderr
        .trim()
        .split("\n")
        .filter((l) => l.includes(`${r.file}:`)),
    ).toHaveLength(100);
    expect(r.stderr).toMatch(/… and [\d,]+ more problems/);
  });

  it("random and mutated workflows: exit 0 when valid, else exit 2 with located messages", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          mutated(VALID, '{}()=;#"/\\*-_.\n'),
          nasty(VALID, { huge: false }),
          randomText('{}()=;#"/\\*-_.\n'),
          fc.string({ unit: fc.constantFrom(...'()!&|=<>-, 1x"'.split("")), maxLength: 60 }).map(decision),
        ),
        (text) => {
          const r = validate(text);
          expect(r.stderr).not.toMatch(/\n\s+at |Maximum call stack/);
          if (r.code === 0) return;
          expect(r.code).toBe(2);
          expect(r.stderr).toMatch(/w\.kdl:\d+:\d+: /);
        },
      ),
      { numRuns: fuzzRuns(15) },
    );
  });

  it("a fixpoint.kdl with CRLF, NUL bytes, unpaired surrogates or a BOM: exit 0, or 2 at file:line:column", () => {
    const config = readFileSync(join(repo, "fixpoint.kdl"), "utf8");
    try {
      fc.assert(
        fc.property(
          nasty([config, `${config}\ndefaults {\n  max-cycles 3\n  redact-env "MY_TOKEN"\n}\n`], {
            huge: false,
          }),
          (text) => {
            writeFileSync(join(repo, "fixpoint.kdl"), text);
            const r = runCli(["status"], { cwd: repo, env });
            expect(r.stderr).not.toMatch(/\n\s+at |Maximum call stack/);
            if (r.code === 0) return;
            expect(r.code, r.stderr).toBe(2);
            expect(r.stderr).toMatch(/fixpoint\.kdl:\d+:\d+: /);
          },
        ),
        { numRuns: fuzzRuns(10) },
      );
    } finally {
      writeFileSync(join(repo, "fixpoint.kdl"), config);
    }
  });
});
