import { chmodSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createDemoRepo } from "../../src/demo/project.js";
import { git, isolatedEnv, runCli } from "../helpers/cli.js";
import { makeTempDir } from "../helpers/temp.js";
import { fuzzRuns } from "./fuzz-inputs.js";

/**
 * A secret in an agent CLI's raw stream (Claude Code's stream-json: a tool's output, the agent's
 * text, a commit message it wrote) is JSON-escaped there, so it sits right after `\n`, `\t` or a
 * quote — never at a word boundary. Through the real binary, with a stand-in `claude` that replays
 * a recorded stream with the secret planted: it never reaches the database, `.fixpoint/` (the
 * transcripts keep the raw stream), fixpoint's commits, or any command's output.
 */

const RECORDED = fileURLToPath(new URL("../fixtures/streams/claude-tool-use.jsonl", import.meta.url));

/** Replays the recorded stream with `$PLANTED` in the tool output, the text and a commit message. */
const FAKE_CLAUDE = `#!/usr/bin/env node
import { readFileSync, writeFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
readFileSync(0);
const s = process.env.PLANTED;
const sep = process.env.SEP;
writeFileSync("hello.txt", "hello\\n");
execFileSync("git", ["add", "-A"]);
execFileSync("git", ["commit", "-qm", "wrote hello" + sep + s]);
for (const line of readFileSync(process.env.RECORDED, "utf8").split("\\n").filter(Boolean)) {
  const e = JSON.parse(line);
  for (const c of e.message?.content ?? []) {
    if (c.type === "tool_result") c.content = "$ env" + sep + s + "\\nGITHUB=" + s;
    if (c.type === "text") c.text = "DONE." + sep + s;
  }
  process.stdout.write(JSON.stringify(e) + "\\n");
}
process.stderr.write("debug:" + sep + s + "\\n");
`;

function filesUnder(dir: string): string[] {
  let out: string[] = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out = out.concat(filesUnder(p));
    else out.push(p);
  }
  return out;
}

const ALNUM = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".split("");
const tail = fc.string({ unit: fc.constantFrom(...ALNUM), minLength: 36, maxLength: 40 });
const secret = fc.oneof(
  tail.map((t) => `ghp_${t}`),
  tail.map((t) => `sk-ant-api03-${t}`),
  tail.map((t) => `xoxb-1-${t}`),
);

describe("a secret in an agent CLI's raw stream never escapes", () => {
  it("after \\n, \\t, a quote or an underscore: not in the store, .fixpoint/, fixpoint's commits or any output", () => {
    fc.assert(
      fc.property(secret, fc.constantFrom("\n", "\t", '"', "_", "\\"), (planted, sep) => {
        const root = makeTempDir("stream-redact-");
        const repo = join(root, "repo");
        const claude = join(root, "claude.mjs");
        writeFileSync(claude, FAKE_CLAUDE);
        chmodSync(claude, 0o755);
        const env = isolatedEnv(root, { PLANTED: planted, SEP: sep, RECORDED });
        createDemoRepo(repo);
        expect(runCli(["init"], { cwd: repo, env }).code).toBe(0);
        writeFileSync(
          join(repo, "fixpoint.kdl"),
          `agent "implementer" backend="claude-code" command=${JSON.stringify(claude)} timeout="1m"\n`,
        );
        expect(runCli(["add", "write hello", "--workflow", "implement-only"], { cwd: repo, env }).code).toBe(
          0,
        );
        const outputs = [runCli(["work"], { cwd: repo, env, timeoutMs: 60_000 })];
        expect(outputs[0]?.code, (outputs[0]?.stdout ?? "") + (outputs[0]?.stderr ?? "")).toBe(0);
        for (const args of [
          ["show", "t-1", "--json"],
          ["logs", "t-1", "--json"],
          ["logs", "t-1"],
          ["status"],
        ]) {
          outputs.push(runCli(args, { cwd: repo, env }));
        }
        for (const o of outputs) expect(o.stdout + o.stderr).not.toContain(planted);
        const files = filesUnder(join(repo, ".fixpoint"));
        // The transcript holds the raw stream: the planted text really went through it.
        const transcripts = files.filter((f) => f.includes("transcript"));
        expect(transcripts.length).toBeGreaterThan(0);
        expect(transcripts.map((f) => readFileSync(f, "utf8")).join("")).toContain("[REDACTED]");
        for (const f of files) expect(readFileSync(f).toString("latin1"), f).not.toContain(planted);
        // fixpoint's own commits (the stage's commit): the agent's commit is the agent's.
        const subjects = git(repo, "log", "--all", "--format=%an %s%n%b").split("\n");
        const ours = subjects.filter((l) => !l.includes("wrote hello"));
        expect(ours.join("\n")).not.toContain(planted);
      }),
      { numRuns: fuzzRuns(4) },
    );
  }, 180_000);
});
