import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { removeFolder } from "./remove-folder.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "fixpoint-remove-folder-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true, maxRetries: 3 }));

/** A folder with files a few levels down, as a checkout is. */
function checkout(path: string): void {
  for (const d of ["src", "src/a", "docs"]) mkdirSync(join(path, d), { recursive: true });
  for (const f of ["README.md", "src/a/x.ts", "docs/y.md", ".git"]) writeFileSync(join(path, f), f);
}

describe("removeFolder", () => {
  it("removes the folder and leaves nothing beside it; a folder already gone is no error", async () => {
    const path = join(root, "t-1");
    checkout(path);
    await removeFolder(path);
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(join(root, ".removed"))).toEqual([]);
    await removeFolder(path);
  });

  it("frees the path at once while a process left running keeps writing in the folder", async () => {
    const path = join(root, "t-2");
    checkout(path);
    // A git checkout that outlived its worker: one process writing by paths relative to its folder
    // (no child processes of its own, which could outlive it and write after the test).
    const script =
      "const fs = require('node:fs'); for (let i = 0; i < 1e6; i++) { fs.mkdirSync('d' + i, { recursive: true }); fs.writeFileSync('d' + i + '/f', 'x'); }";
    const writer = spawn(process.execPath, ["-e", script], { cwd: path, stdio: "ignore" });
    try {
      // Writing already: the removal meets it at work.
      for (let waited = 0; !existsSync(join(path, "d10")) && waited < 10_000; waited += 10)
        await new Promise((r) => setTimeout(r, 10));
      expect(existsSync(join(path, "d10"))).toBe(true);
      await removeFolder(path);
      expect(existsSync(path)).toBe(false);
      await new Promise((r) => setTimeout(r, 100));
      // Whatever it still wrote went to the folder's new name, not to a new folder at the old one.
      expect(existsSync(path)).toBe(false);
    } finally {
      const exited = new Promise((r) => writer.once("exit", r));
      writer.kill("SIGKILL");
      await exited;
    }
  });

  it("deletes what a remover killed part way left, unless that remover still runs", async () => {
    const dead = spawnSync(process.execPath, ["-e", "0"]).pid as number;
    const left = join(root, ".removed", `t-3.${dead}.1`);
    const busy = join(root, ".removed", `t-4.${process.pid}.1`);
    checkout(left);
    checkout(busy);
    const path = join(root, "t-5");
    checkout(path);
    await removeFolder(path);
    expect(readdirSync(join(root, ".removed"))).toEqual([`t-4.${process.pid}.1`]);
  });
});
