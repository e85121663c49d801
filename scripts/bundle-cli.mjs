// Bundles the compiled CLI (tsc's dist/cli/) into dist/bin/, the `fixpoint` on the PATH.
//
// Why: a command's own start-up was a third of its time (issue 10, `status --json` at 100,000
// tasks). Node 20 loads ES modules one by one, resolving, reading and linking each: `status`
// needed about 120 of them, and 25 chunks of an ES-module bundle still cost 50 ms. One CommonJS
// file is read at once; parsing all of it (1.7 MB) is what V8's code cache saves, and Node 20 has
// no code cache of its own for user code. So:
//
// - dist/bin/fixpoint-cli.cjs: every command in one CommonJS file. Each module is evaluated only
//   when first imported (esbuild's lazy wrappers), as dist/cli/program.js imports one command.
// - dist/bin/fixpoint-cli.cjs.v8-cache: V8's code cache for it, made here by the launcher in a
//   child process (the same Node and flags as a plain `fixpoint`).
// - dist/bin/fixpoint.js: the launcher (src/cli/launcher.ts), which runs the bundle with the cache.
// - dist/bin/checkpoint-thread.js, lease-thread.js: the worker threads, ES modules of their own.
//
// Layout: dist/bin/ sits at the same depth as dist/cli/, so the paths the code resolves from its
// own URL (`../../prompts/`, `../../workflows/`, `./checkpoint-thread.js`) reach the same files;
// in the CommonJS bundle `import.meta.url` is the bundle's own URL. The library (dist/index.js) is
// not bundled. better-sqlite3 (a native addon) and pg (which may load pg-native) stay in
// node_modules.
import { execFileSync } from "node:child_process";
import { chmodSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const outdir = "dist/bin";
const out = (file) => fileURLToPath(new URL(`../${outdir}/${file}`, import.meta.url));
const common = {
  absWorkingDir: root,
  bundle: true,
  platform: "node",
  target: "node20",
  external: ["better-sqlite3", "pg", "pg-native"],
  logLevel: "warning",
};

rmSync(new URL(`../${outdir}`, import.meta.url), { recursive: true, force: true });
await build({
  ...common,
  entryPoints: { "fixpoint-cli": "dist/cli/main.js" },
  outdir,
  outExtension: { ".js": ".cjs" },
  format: "cjs",
  minifyWhitespace: true,
  minifySyntax: true,
  define: { "import.meta.url": "__fixpointBundleUrl" },
  banner: { js: 'var __fixpointBundleUrl = require("node:url").pathToFileURL(__filename).href;' },
});
await build({
  ...common,
  entryPoints: {
    "checkpoint-thread": "dist/store/sqlite/checkpoint-thread.js",
    "lease-thread": "dist/store/lease-thread.js",
  },
  outdir,
  format: "esm",
  // CommonJS dependencies bundled into ES modules call `require` for Node's own modules; ES
  // modules have none, so each output file makes one.
  banner: {
    js: 'import { createRequire as __fixpointCreateRequire } from "node:module"; const require = __fixpointCreateRequire(import.meta.url);',
  },
});

await build({ ...common, entryPoints: { fixpoint: "dist/cli/launcher.js" }, outdir, format: "esm" });
chmodSync(out("fixpoint.js"), 0o755);

// The code cache, from a plain `node` (no flags of this process: V8 would reject it).
execFileSync(process.execPath, [out("fixpoint.js")], {
  env: { ...process.env, FIXPOINT_CODE_CACHE: "write", NODE_OPTIONS: "" },
  stdio: "inherit",
});
