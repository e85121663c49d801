/**
 * The `fixpoint` users run is a launcher and a one-file bundle (scripts/bundle-cli.mjs, built by
 * the global setup). Code moved into the bundle still finds what it resolves from its own
 * location: the prompts and workflows folders and the worker threads' files. A thread whose file
 * is missing would not fail a command (its work falls back to the main thread), so this checks
 * every such path. And the launcher runs the bundle with V8's code cache, which V8 accepts; the
 * bundle is ASCII only and loads the built-in modules a command may not need only when used.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { openStore } from "../../src/store/open.js";
import { CLI, demoProject, moduleReport } from "../helpers/cli.js";
import { makeTempDir } from "../helpers/temp.js";

const BIN = new URL("../../dist/bin/", import.meta.url);

describe("the bundled binary", () => {
  it("finds every file and folder it resolves from its own location", () => {
    const resolved: string[] = [];
    for (const file of readdirSync(BIN).filter((f) => f.endsWith(".js") || f.endsWith(".cjs"))) {
      const text = readFileSync(new URL(file, BIN), "utf8");
      // In the CommonJS bundle, import.meta.url is __fixpointBundleUrl, the bundle's own URL.
      for (const m of text.matchAll(/new URL\("([^"]+)",\s*(?:import\.meta\.url|__fixpointBundleUrl)\)/g)) {
        const target = new URL(m[1] ?? "", new URL(file, BIN));
        resolved.push(m[1] ?? "");
        expect(existsSync(fileURLToPath(target)), `${file}: ${m[1]}`).toBe(true);
      }
    }
    expect(resolved.sort()).toEqual(
      expect.arrayContaining([
        "../../prompts/",
        "../../workflows/",
        "./checkpoint-thread.js",
        "./fixpoint-cli.cjs",
        "./lease-thread.js",
      ]),
    );
  });

  it("starts each worker thread from its bundled file (a file that fails to load would go unnoticed)", async () => {
    const root = makeTempDir("threads-");
    execFileSync("git", ["init", "-q", root]);
    const store = await openStore("sqlite", root);
    await store.close();
    const answer = (file: string, workerData: unknown, ask: unknown) =>
      new Promise<unknown[]>((resolve, reject) => {
        const said: unknown[] = [];
        const w = new Worker(new URL(file, BIN), { workerData });
        w.on("error", reject);
        w.on("message", (m: unknown) => {
          said.push(m);
          if (said.length === 1) w.postMessage(ask);
          else void w.terminate().then(() => resolve(said));
        });
        w.on("exit", () => resolve(said));
      });
    const db = join(root, ".fixpoint", "fixpoint.db");
    expect(await answer("checkpoint-thread.js", { path: db, everyMs: 10 }, "stop")).toEqual(["ready"]);
    // The lease thread says nothing until asked: "stop" for a lease it never kept is answered.
    const lease = new Worker(new URL("lease-thread.js", BIN), {
      workerData: { url: "sqlite", projectRoot: root },
    });
    const stopped = await new Promise<unknown>((resolve, reject) => {
      lease.on("error", reject);
      lease.on("message", resolve);
      lease.postMessage({ type: "stop", id: 7 });
    });
    await lease.terminate();
    expect(stopped).toEqual({ type: "stopped", id: 7 });
  });

  it("runs the bundle with a code cache V8 accepts, and without one", () => {
    const bin = fileURLToPath(new URL("fixpoint.js", BIN));
    const run = (flags: string[], env: NodeJS.ProcessEnv = {}) =>
      execFileSync(process.execPath, [...flags, bin, "--version"], {
        env: { ...process.env, NODE_OPTIONS: "", ...env },
        encoding: "utf8",
      });
    const pkg = new URL("../../package.json", import.meta.url);
    const version = (JSON.parse(readFileSync(pkg, "utf8")) as { version: string }).version;
    expect(run([], { FIXPOINT_CODE_CACHE: "check" })).toBe("code cache: accepted\n");
    expect(run([]).trim()).toBe(version);
    // Other V8 flags: V8 rejects the cache and the bundle is compiled from its text.
    const flags = ["--max-old-space-size=300"];
    expect(run(flags, { FIXPOINT_CODE_CACHE: "check" })).toBe("code cache: rejected\n");
    expect(run(flags).trim()).toBe(version);
  });

  it("is ASCII only, so the launcher's Latin-1 read is the text, and the escaped characters still mean themselves", () => {
    const text = readFileSync(new URL("fixpoint-cli.cjs", BIN));
    expect(text.findIndex((byte) => byte > 0x7f)).toBe(-1);
    // A regular expression built from a raw template holding "…" (CUT_TOKEN in
    // src/util/redact.ts): a key cut short before an ellipsis, too short for the whole-key shape,
    // is hidden only if the escaped "…" still matches one.
    const { cli } = demoProject("ascii-");
    expect(cli("add", "rotate sk-Zq7Zq7Zq7\u2026 and then résumé").code).toBe(0);
    const shown = cli("status", "--json").stdout;
    const title = (JSON.parse(shown) as { title: string }[])[0]?.title;
    expect(title).toContain("rotate");
    expect(title).toContain("résumé");
    expect(title).not.toContain("Zq7Zq7");
  });

  it("loads no child_process, zlib, worker_threads or v8 for `status --json` and `--version`, nor stdout's stream for a listing", () => {
    const { root, repo, env } = demoProject("lazy-");
    const report = moduleReport(root);
    const loaded = (args: string[]) => {
      const r = spawnSync(process.execPath, ["-r", report.preload, CLI, ...args], {
        cwd: repo,
        env,
        encoding: "utf8",
      });
      expect(r.status, r.stderr).toBe(0);
      return report.loaded(r.stderr);
    };
    for (const args of [["--version"], ["status", "--json"]]) {
      const mods = loaded(args);
      expect(mods).toContain("NativeModule fs");
      for (const lazy of ["child_process", "zlib", "worker_threads", "v8"]) {
        expect(mods, `${args.join(" ")}: ${lazy}`).not.toContain(`NativeModule ${lazy}`);
      }
    }
    // `status --json` to a pipe writes its pages to descriptor 1 itself: process.stdout (net and
    // the stream machinery for a pipe) is never made, and the config is read without fs/promises.
    const listing = loaded(["status", "--json"]);
    for (const unused of ["net", "stream", "tty", "fs/promises"]) {
      expect(listing, `status --json: ${unused}`).not.toContain(`NativeModule ${unused}`);
    }
    // A command that runs git still loads what starting a child needs when it needs it: net for
    // the sockets of a child the native starter started, child_process for a fork by Node.
    expect(loaded(["add", "a task"])).toContain("NativeModule net");
    const forked = spawnSync(process.execPath, ["-r", report.preload, CLI, "add", "another task"], {
      cwd: repo,
      env: { ...env, FIXPOINT_SPAWN_HELPER: "0" },
      encoding: "utf8",
    });
    expect(forked.status, forked.stderr).toBe(0);
    expect(report.loaded(forked.stderr)).toContain("NativeModule child_process");
  });

  it("is the package's `fixpoint` and can be run directly", () => {
    const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      bin: Record<string, string>;
    };
    expect(pkg.bin.fixpoint).toBe("dist/bin/fixpoint.js");
    expect(readFileSync(new URL("fixpoint.js", BIN), "utf8").startsWith("#!/usr/bin/env node\n")).toBe(true);
    expect(statSync(new URL("fixpoint.js", BIN)).mode & 0o111).toBe(0o111);
  });
});
