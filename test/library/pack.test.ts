import { execFileSync, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, isolatedEnv, tempDir } from "../helpers/cli.js";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** The one ```js block of docs/library.md: the test runs exactly what the documentation shows. */
function docScript(): string {
  const doc = readFileSync(join(REPO, "docs/library.md"), "utf8");
  const blocks = [...doc.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
  expect(blocks, "docs/library.md must hold exactly one js example").toHaveLength(1);
  return blocks[0] ?? "";
}

function provideSqliteAddon(installed: string): void {
  const ours = join(REPO, "node_modules/better-sqlite3");
  const version = (dir: string) => JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
  const addon = join(ours, "build/Release/better_sqlite3.node");
  if (version(installed) === version(ours) && existsSync(addon)) {
    mkdirSync(join(installed, "build/Release"), { recursive: true });
    copyFileSync(addon, join(installed, "build/Release/better_sqlite3.node"));
  } else {
    execFileSync("npm", ["rebuild", "better-sqlite3", "--loglevel=error"], {
      cwd: join(installed, "../.."),
      stdio: ["ignore", "ignore", "pipe"],
      timeout: 600_000,
    });
  }
}

describe("the packed package, installed into another project", () => {
  let dir = "";
  let tarball = "";

  beforeAll(() => {
    dir = tempDir("fixpoint-pack-");
    // dist/ is built by the global setup; the package is packed as published.
    const out = execFileSync("npm", ["pack", "--ignore-scripts", "--json", "--pack-destination", dir], {
      cwd: REPO,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    const packed: { filename: string }[] = JSON.parse(out);
    tarball = join(dir, packed[0]?.filename ?? "");
    const project = join(dir, "project");
    mkdirSync(project);
    writeFileSync(
      join(project, "package.json"),
      JSON.stringify({ name: "uses-fixpoint", private: true, type: "module" }),
    );
    // Scripts off: compiling better-sqlite3 from source takes minutes on a busy machine. Its
    // native addon is taken from our own install when the versions match (same Node, same ABI);
    // otherwise it is rebuilt the slow way.
    execFileSync(
      "npm",
      [
        "install",
        tarball,
        "--prefer-offline",
        "--no-audit",
        "--no-fund",
        "--ignore-scripts",
        "--loglevel=error",
      ],
      { cwd: project, stdio: ["ignore", "ignore", "pipe"], timeout: 240_000 },
    );
    provideSqliteAddon(join(project, "node_modules/better-sqlite3"));
  }, 300_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("ships declarations and an exports map", () => {
    const pkg = join(dir, "project/node_modules/fixpoint");
    const manifest = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8"));
    expect(manifest.exports["."]).toEqual({ types: "./dist/index.d.ts", import: "./dist/index.js" });
    const decl = readFileSync(join(pkg, "dist/index.d.ts"), "utf8");
    expect(decl).toContain("createFixpoint");
    expect(readdirSync(join(pkg, "workflows"))).toContain("implement-review.kdl");
  });

  it("runs the docs/library.md example to APPROVED with a custom agent backend", () => {
    const project = join(dir, "project");
    const env = isolatedEnv(dir);
    git(project, "init", "-q", "-b", "main");
    writeFileSync(join(project, ".gitignore"), "node_modules/\n*.mjs\npackage*.json\n");
    writeFileSync(join(project, "README.md"), "# uses fixpoint\n");
    spawnSync("git", ["add", "-A"], { cwd: project, env });
    spawnSync("git", ["commit", "-qm", "initial"], { cwd: project, env });
    writeFileSync(join(project, "example.mjs"), docScript());
    const r = spawnSync(process.execPath, ["example.mjs"], {
      cwd: project,
      env,
      encoding: "utf8",
      timeout: 120_000,
    });
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe("t-1 APPROVED");
    // The agent's work is committed on the task's branch; the checkout stays clean (.fixpoint/
    // is excluded from git without a change to any tracked file).
    const branch = git(project, "branch", "--list", "fixpoint/t-1*")
      .trim()
      .replace(/^[*+ ]+/, "");
    expect(git(project, "show", `${branch}:hello.txt`)).toBe("hello, world\n");
    expect(git(project, "status", "--porcelain")).toBe("");
  }, 180_000);

  it("a malformed option is a FixpointError naming it", () => {
    const project = join(dir, "project");
    const script = `import { createFixpoint, FixpointError } from "fixpoint";
try { await createFixpoint({ agents: { implementer: 42 } }); }
catch (e) { console.log(e instanceof FixpointError, e.code, e.message); }`;
    writeFileSync(join(project, "bad.mjs"), script);
    const r = spawnSync(process.execPath, ["bad.mjs"], {
      cwd: project,
      env: isolatedEnv(dir),
      encoding: "utf8",
    });
    expect(r.stdout.trim()).toBe(
      "true usage createFixpoint: agents.implementer: must be an AgentBackend (an object with run())",
    );
  });
});
