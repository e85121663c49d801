// Builds fixpoint's native addons (binding.gyp) with the node-gyp that npm ships: the child
// starter (native/spawn.cc → build/Release/fixpoint_spawn.node) and the writers of a PostgreSQL
// store's `status --json` objects and `status` lines (native/copy-json.cc, native/copy-lines.cc →
// fixpoint_copy_json.node, fixpoint_copy_lines.node). Run by `npm install` / `npm ci` (the
// "install" script) and by `npm run build:native`. On Linux (all three) and macOS (the writers). It
// never fails the install: without the addons fixpoint starts children with Node's own spawn
// (src/util/native-spawn.ts) and writes those rows in JavaScript (src/store/postgres/task-json-page.ts,
// task-line-page.ts).
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));

function nodeGyp() {
  const candidates = [
    // Set by npm while it runs a package's scripts.
    process.env.npm_config_node_gyp,
    process.env.npm_execpath &&
      join(dirname(process.env.npm_execpath), "..", "node_modules", "node-gyp", "bin", "node-gyp.js"),
    join(
      dirname(process.execPath),
      "..",
      "lib",
      "node_modules",
      "npm",
      "node_modules",
      "node-gyp",
      "bin",
      "node-gyp.js",
    ),
  ];
  return candidates.find((p) => typeof p === "string" && p.endsWith(".js") && existsSync(p));
}

function main() {
  // The starter is Linux's (binding.gyp builds nothing of it elsewhere); the row writers are portable.
  if (process.platform !== "linux" && process.platform !== "darwin") return;
  if (process.env.FIXPOINT_SKIP_NATIVE === "1") return;
  const gyp = nodeGyp();
  if (gyp === undefined) {
    console.error(
      "fixpoint: node-gyp not found; children will be started with Node's spawn (slower from a large worker), and PostgreSQL listings read in JavaScript",
    );
    return;
  }
  const r = spawnSync(process.execPath, [gyp, "rebuild", "--release"], { cwd: root, encoding: "utf8" });
  if (r.status === 0) return;
  const tail = `${r.stdout ?? ""}${r.stderr ?? ""}`.trim().split("\n").slice(-8).join("\n");
  console.error(
    `fixpoint: building the native addons failed; children will be started with Node's spawn (slower from a large worker), and PostgreSQL listings read in JavaScript.\n${tail}`,
  );
}

main();
