// Bundles the compiled CLI (tsc's dist/cli/main.js) into dist/bin/, the `fixpoint` on the PATH.
//
// Why: Node 20 loads ES modules one by one, resolving, reading and linking each, and a command
// such as `status` needs about 120 of them (ours and its dependencies'): 40–70 ms of every
// command on a slow machine (issue 10, `status --json` at 100,000 tasks). Bundled, a command
// loads the entry, its own chunk and the chunks it shares with others: a handful of files.
// One bundle of everything was slower (1.7 MB compiled for every command), so each command stays
// a lazily imported chunk, as in dist/cli/program.js.
//
// Layout: dist/bin/ sits at the same depth as dist/cli/, so the paths the code resolves from its
// own URL (`../../prompts/`, `../../workflows/`) reach the same folders; the two worker threads
// are entries of their own beside the chunks that start them (`./checkpoint-thread.js`). The
// library (dist/index.js) is not bundled. better-sqlite3 (a native addon) and pg (which may load
// pg-native) stay in node_modules.
import { chmodSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = "dist/bin";

rmSync(new URL(`../${outdir}`, import.meta.url), { recursive: true, force: true });
await build({
  absWorkingDir: root,
  entryPoints: {
    fixpoint: "dist/cli/main.js",
    "checkpoint-thread": "dist/store/sqlite/checkpoint-thread.js",
    "lease-thread": "dist/store/lease-thread.js",
  },
  outdir,
  chunkNames: "chunk-[hash]",
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "node",
  target: "node20",
  external: ["better-sqlite3", "pg", "pg-native"],
  // CommonJS dependencies bundled into ES modules (commander) call `require` for Node's own
  // modules; ES modules have none, so each output file makes one.
  banner: {
    js: 'import { createRequire as __fixpointCreateRequire } from "node:module"; const require = __fixpointCreateRequire(import.meta.url);',
  },
  logLevel: "warning",
});
chmodSync(new URL(`../${outdir}/fixpoint.js`, import.meta.url), 0o755);
