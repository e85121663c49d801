import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createDemoRepo, demoConfig } from "./project.js";

/**
 * `npm run demo`: a real implement → gates → reviews → fix loop on a real git repository with
 * scripted agents and SQLite, no API key, no network. It drives the real CLI as a user would.
 */
// The bundled binary (scripts/bundle-cli.mjs), the `fixpoint` a user runs.
const CLI = fileURLToPath(new URL("../bin/fixpoint.js", import.meta.url));

function main(): number {
  const root = mkdtempSync(join(tmpdir(), "fixpoint-demo-"));
  const repo = join(root, "stats");
  const env = { ...process.env, FIXPOINT_HOME: join(root, "fixpoint-home") };
  say(`Creating a small program in a new git repository: ${repo}`);
  createDemoRepo(repo);
  const run = (args: string[]) => {
    say(`\n$ fixpoint ${args.map((a) => (a.includes(" ") ? JSON.stringify(a) : a)).join(" ")}`);
    const r = spawnSync(process.execPath, [CLI, ...args], { cwd: repo, env, stdio: "inherit" });
    return r.status ?? 1;
  };
  if (run(["init"]) !== 0) return 1;
  writeFileSync(join(repo, "fixpoint.kdl"), demoConfig());
  say("(fixpoint.kdl now uses the demo's scripted agents: demo/agents/*.mjs)");
  if (run(["add", "Add mean() and median() to src/stats.js, with tests", "--max-cycles", "3"]) !== 0)
    return 1;
  const code = run(["work"]);
  run(["status"]);
  run(["findings", "t-1", "--history"]);
  say(
    `\nThe repository is at ${repo}; the task's branch is fixpoint/t-1-… (see \`git -C ${repo} log --all --oneline\`).`,
  );
  say(`Look around: cd ${repo} && fixpoint show t-1   (or: node ${CLI} show t-1)`);
  return code;
}

function say(text: string): void {
  process.stdout.write(`${text}\n`);
}

process.exitCode = main();
