import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { lineOf, parseSource, productionFiles, readSource, walk } from "./ts-source.js";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));
/** The one runner (issue 9 item 6): every git process starts there, with a timeout and a signal. */
const RUNNER = "git/exec.ts";
const PROCESS_CALLS = new Set([
  "spawn",
  "spawnSync",
  "execFile",
  "execFileSync",
  "exec",
  "execSync",
  "fork",
  "startChild",
]);

const isGit = (node: ts.Node | undefined): boolean =>
  node !== undefined && ts.isStringLiteralLike(node) && /^git(\s|$)/.test(node.text);

/** Places that start git themselves: a process call whose command is "git", or `command: "git"`. */
function gitInvocations(sf: ts.SourceFile): number[] {
  const lines: number[] = [];
  for (const node of walk(sf)) {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee)
        ? callee.text
        : ts.isPropertyAccessExpression(callee)
          ? callee.name.text
          : "";
      if (PROCESS_CALLS.has(name) && isGit(node.arguments[0])) lines.push(lineOf(sf, node));
    } else if (
      ts.isPropertyAssignment(node) &&
      node.name.getText(sf) === "command" &&
      isGit(node.initializer)
    ) {
      lines.push(lineOf(sf, node));
    }
  }
  return lines;
}

/**
 * Option names of every `spawn`/`spawnSync` call in a file (their third argument), and of every
 * `startChild` call (src/util/spawner.ts; its first argument holds the options).
 */
function spawnOptions(sf: ts.SourceFile): { call: string; options: string[] }[] {
  const out: { call: string; options: string[] }[] = [];
  for (const node of walk(sf)) {
    if (!ts.isCallExpression(node) || !ts.isIdentifier(node.expression)) continue;
    const call = node.expression.text;
    if (call !== "spawn" && call !== "spawnSync" && call !== "startChild") continue;
    const opts = node.arguments[call === "startChild" ? 0 : 2];
    const options =
      opts && ts.isObjectLiteralExpression(opts)
        ? opts.properties.flatMap((p) => (p.name ? [p.name.getText(sf)] : []))
        : [];
    out.push({ call, options });
  }
  return out;
}

describe("every git call goes through the one runner", () => {
  it("no file of src/ but the runner starts git", () => {
    const bypasses = productionFiles(SRC)
      .filter((f) => f !== RUNNER)
      .flatMap((f) => gitInvocations(readSource(SRC, f)).map((line) => `${f}:${line}`));
    expect(bypasses).toEqual([]);
  });

  it("the runner gives each git process a timeout, and each async one an AbortSignal too", () => {
    const calls = spawnOptions(readSource(SRC, RUNNER));
    expect(calls.map((c) => c.call).sort()).toEqual(["spawnSync", "startChild"]);
    for (const c of calls) expect(c.options, c.call).toContain("timeout");
    expect(calls.find((c) => c.call === "startChild")?.options).toContain("signal");
  });

  it("the scan sees git started by hand, in each way", () => {
    const text = [
      'import { execFileSync, spawn } from "node:child_process";',
      'spawn("git", ["status"]);',
      'execFileSync("git", ["log"], { cwd });',
      'cp.exec("git fetch origin");',
      'await runner.run({ command: "git", args: ["init"] });',
      'spawn("node", ["git"]);',
      'const label = { command: "gitk" };',
    ].join("\n");
    expect(gitInvocations(parseSource("x.ts", text))).toEqual([2, 3, 4, 5]);
  });
});
