/**
 * The `fixpoint` users run is a bundle (scripts/bundle-cli.mjs, built by the global setup). Code
 * moved into its chunks still finds what it resolves from its own location: the prompts and
 * workflows folders and the worker threads' files. A thread whose file is missing would not fail
 * a command (its work falls back to the main thread), so this checks every such path.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const BIN = new URL("../../dist/bin/", import.meta.url);

describe("the bundled binary", () => {
  it("finds every file and folder it resolves from its own location", () => {
    const resolved: string[] = [];
    for (const file of readdirSync(BIN).filter((f) => f.endsWith(".js"))) {
      const text = readFileSync(new URL(file, BIN), "utf8");
      for (const m of text.matchAll(/new URL\("([^"]+)", import\.meta\.url\)/g)) {
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
        "./lease-thread.js",
      ]),
    );
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
