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
//   child process (the same Node and flags as a plain `fixpoint`) running `status --json`.
// - dist/bin/fixpoint.js: the launcher (src/cli/launcher.ts), which runs the bundle with the cache.
// - dist/bin/checkpoint-thread.js, lease-thread.js: the worker threads, bundles of their own.
// - dist/bin/package.json: `"type": "commonjs"`, for the three `.js` files above.
//
// Layout: dist/bin/ sits at the same depth as dist/cli/, so the paths the code resolves from its
// own URL (`../../prompts/`, `../../workflows/`, `./checkpoint-thread.js`) reach the same files;
// in the CommonJS bundles `import.meta.url` is the bundle's own URL. The library (dist/index.js) is
// not bundled. pg goes into the CLI's bundle (loading it from node_modules cost 10-15 ms of every
// command on PostgreSQL; its optional pg-native and pg-cloudflare stay outside, loaded only if
// asked for), while better-sqlite3's compiled addon and, in the threads' bundles, better-sqlite3
// and pg stay in node_modules.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
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

/**
 * Built-in modules a command may never use, loaded on first use instead of when the module naming
 * them is: `status` and `--version` load none of them (commander requires child_process for
 * subcommands run as programs, which fixpoint has none of; the native child starter requires net
 * for the sockets of a child it starts; the store requires zlib and
 * worker_threads for artifacts and checkpoints; v8 is for long listings only,
 * src/util/young-garbage.ts). Together 6-15 ms of every command (docs/benchmarks.md). The bundle
 * names each with a plain `require("node:…")` whose value is only ever read for its properties;
 * the proxy loads the module at the first read.
 */
const LAZY = ["child_process", "fs/promises", "net", "v8", "worker_threads", "zlib"];
const LAZY_BUILTIN = `var __fixpointLazyBuiltin = (id) => {
  let m;
  const load = () => (m ??= require(id));
  return new Proxy({}, {
    get: (_, k) => load()[k],
    has: (_, k) => k in load(),
    ownKeys: () => Reflect.ownKeys(load()),
    getOwnPropertyDescriptor: (_, k) => {
      const d = Reflect.getOwnPropertyDescriptor(load(), k);
      return d && { ...d, configurable: true };
    },
  });
};`;

rmSync(new URL(`../${outdir}`, import.meta.url), { recursive: true, force: true });
// Every file in dist/bin/ is CommonJS (dist/bin/package.json says so for the `.js` ones): Node
// loads a CommonJS file without its ES module loader, which cost the launcher 10 ms per command
// (docs/benchmarks.md). In CommonJS, `import.meta.url` is each file's own URL, made from __filename.
const commonJs = {
  ...common,
  outdir,
  format: "cjs",
  minifyWhitespace: true,
  minifySyntax: true,
  define: { "import.meta.url": "__fixpointBundleUrl" },
  banner: { js: 'var __fixpointBundleUrl = require("node:url").pathToFileURL(__filename).href;' },
};
await build({
  ...commonJs,
  entryPoints: { "fixpoint-cli": "dist/cli/main.js" },
  outExtension: { ".js": ".cjs" },
  // better-sqlite3's JavaScript goes into the bundle, under the code cache too (it cost 8-10 ms
  // per command from node_modules); its addon is loaded by path (src/store/sqlite/native-addon.ts),
  // so the `bindings` package it would otherwise use is never called.
  external: ["bindings", "pg-native", "pg-cloudflare"],
  banner: { js: `${commonJs.banner.js}\n${LAZY_BUILTIN}` },
});
lazyBuiltins(out("fixpoint-cli.cjs"));
asciiOnly(out("fixpoint-cli.cjs"));
writeFileSync(out("package.json"), `${JSON.stringify({ type: "commonjs" }, null, 2)}\n`);
await build({
  ...commonJs,
  entryPoints: {
    "checkpoint-thread": "dist/store/sqlite/checkpoint-thread.js",
    "lease-thread": "dist/store/lease-thread.js",
  },
});
await build({
  ...commonJs,
  entryPoints: { fixpoint: "dist/cli/launcher.js" },
  minifyWhitespace: false,
  minifySyntax: false,
});
chmodSync(out("fixpoint.js"), 0o755);

function lazyBuiltins(file) {
  const text = readFileSync(file, "utf8");
  let n = 0;
  const lazy = text.replace(/\brequire\("node:([a-z0-9_/]+)"\)/g, (all, id) => {
    if (!LAZY.includes(id)) return all;
    n++;
    return `__fixpointLazyBuiltin("node:${id}")`;
  });
  if (n === 0) throw new Error(`${file}: no require of ${LAZY.join(", ")} found to make lazy`);
  writeFileSync(file, lazy);
}

/**
 * Rewrites the bundle with every character outside ASCII as a `\\uXXXX` escape, so the launcher
 * reads it as Latin-1 (a copy) instead of decoding UTF-8 (4 ms of every command; docs/benchmarks.md).
 * esbuild escapes what it can, but leaves the characters of regular expressions and template
 * literals. An escape means the same there: in strings, cooked templates, regular expressions
 * (with or without the u flag, a surrogate pair's two escapes are one character) and the one raw
 * template that holds such a character (a regular expression's source in src/util/redact.ts).
 * Only a backslash right before such a character would read differently: the build stops on a
 * backslash before anything but printable ASCII.
 */
function asciiOnly(file) {
  const text = readFileSync(file, "utf8");
  const odd = /\\[^ -~\t\n\r]/.exec(text);
  if (odd) throw new Error(`${file}: a backslash before a character outside printable ASCII at ${odd.index}`);
  const escaped = text.replace(
    /[\u0080-\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
  writeFileSync(file, escaped);
}

// The code cache, from a plain `node` (no flags of this process: V8 would reject it), written
// after a `status --json` in an empty project so that it holds that command's compiled functions.
const warmup = mkdtempSync(join(tmpdir(), "fixpoint-code-cache-"));
try {
  execFileSync("git", ["init", "-q", warmup], { stdio: "ignore" });
  writeFileSync(join(warmup, "fixpoint.kdl"), "// the code cache's warm-up project\n");
  execFileSync(process.execPath, [out("fixpoint.js"), "status", "--json"], {
    cwd: warmup,
    env: {
      PATH: process.env.PATH,
      HOME: warmup,
      FIXPOINT_HOME: join(warmup, "home"),
      FIXPOINT_CODE_CACHE: "write",
      NODE_OPTIONS: "",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
} finally {
  rmSync(warmup, { recursive: true, force: true });
}
