#!/usr/bin/env node
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import vm from "node:vm";

/**
 * The `fixpoint` on the PATH (dist/bin/fixpoint.js, built from this file by scripts/bundle-cli.mjs
 * beside the CLI's one-file CommonJS bundle). It runs the bundle with V8's code cache, made when
 * the bundle is built, so a command does not pay for parsing the whole CLI again: Node 20 has no
 * code cache of its own for user code, and loading ES modules one by one cost a third of a
 * command's own time (issue 10; docs/benchmarks.md).
 *
 * A cache V8 rejects (another Node version, other V8 flags such as --max-old-space-size) is only
 * slower: the bundle is then compiled from its text as usual. With FIXPOINT_CODE_CACHE=write it
 * runs the command it is given and then writes the cache; with FIXPOINT_CODE_CACHE=check it
 * prints whether V8 takes the cache.
 */
const BUNDLE = fileURLToPath(new URL("./fixpoint-cli.cjs", import.meta.url));
const CODE_CACHE = `${BUNDLE}.v8-cache`;

function readCache(): Buffer | undefined {
  try {
    return readFileSync(CODE_CACHE);
  } catch {
    return undefined;
  }
}

/**
 * The bundle's text wrapped as Node's CommonJS loader wraps a module, with one parameter more
 * (the launcher's `import()`). The same string when the cache is made and when it is used: V8
 * checks the source a cache was made from.
 */
function wrapped(): string {
  // ASCII only (scripts/bundle-cli.mjs escapes the rest), so Latin-1 reads it as UTF-8 would,
  // without decoding 1.2 MB.
  const text = readFileSync(BUNDLE, "latin1");
  return `(function (exports, require, module, __filename, __dirname, __fixpointImport) { ${text}\n});`;
}

function compile(cachedData: Buffer | undefined): vm.Script {
  return new vm.Script(wrapped(), { filename: BUNDLE, ...(cachedData ? { cachedData } : {}) });
}

/**
 * `import()` for the bundle (src/util/import-file.ts): code V8 restores from a cache has no
 * module loader for its own dynamic imports in Node 20, so it uses this module's.
 */
const importFile = (url: string): Promise<unknown> => import(url);

/**
 * The cache is written as the process exits, after the command the build ran (a `status --json`
 * in an empty project): V8 then includes every function that command compiled, not only the
 * bundle's top level, so a command starts without compiling its hot path again (6 ms of an empty
 * `status`; docs/benchmarks.md).
 */
function writeCacheOnExit(script: vm.Script): void {
  process.once("exit", (code) => {
    if (code !== 0) return;
    const tmp = `${CODE_CACHE}.${process.pid}`;
    writeFileSync(tmp, script.createCachedData());
    renameSync(tmp, CODE_CACHE);
  });
}

function run(): void {
  const mode = process.env.FIXPOINT_CODE_CACHE;
  const cache = mode === "write" ? undefined : readCache();
  if (mode === "check") {
    const state =
      cache === undefined ? "missing" : compile(cache).cachedDataRejected ? "rejected" : "accepted";
    process.stdout.write(`code cache: ${state}\n`);
    return;
  }
  const script = compile(cache);
  if (mode === "write") writeCacheOnExit(script);
  const main = script.runInThisContext() as (...args: unknown[]) => void;
  const module = { exports: {} };
  main.call(
    module.exports,
    module.exports,
    createRequire(BUNDLE),
    module,
    BUNDLE,
    dirname(BUNDLE),
    importFile,
  );
}

run();
