import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fileExistsInside, resolveInside } from "./safe-path.js";

let base: string;
let root: string;
let outside: string;

beforeEach(() => {
  base = realpathSync(mkdtempSync(join(tmpdir(), "fixpoint-safe-")));
  root = join(base, "worktree");
  outside = join(base, "outside");
  mkdirSync(join(root, "src"), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(root, "src", "app.ts"), "export {};\n");
  writeFileSync(join(root, "..notes.md"), "notes\n");
  writeFileSync(join(outside, "secret.txt"), "secret\n");
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

describe("resolveInside", () => {
  it("resolves paths inside the root, existing or not", () => {
    expect(resolveInside(root, "src/app.ts")).toBe(join(root, "src", "app.ts"));
    expect(resolveInside(root, "./src/../src/app.ts")).toBe(join(root, "src", "app.ts"));
    expect(resolveInside(root, "src/deleted.ts")).toBe(join(root, "src", "deleted.ts"));
    expect(resolveInside(root, "..notes.md")).toBe(join(root, "..notes.md"));
    expect(resolveInside(root, join(root, "src", "app.ts"))).toBe(join(root, "src", "app.ts"));
  });

  it("rejects traversal and absolute paths outside the root", () => {
    expect(resolveInside(root, "../outside/secret.txt")).toBeNull();
    expect(resolveInside(root, "../../../../../../etc/passwd")).toBeNull();
    expect(resolveInside(root, "src/../../outside")).toBeNull();
    expect(resolveInside(root, "/etc/passwd")).toBeNull();
    expect(resolveInside(root, join(outside, "secret.txt"))).toBeNull();
    expect(resolveInside(root, "")).toBeNull();
    expect(resolveInside(root, "src/app.ts\0.png")).toBeNull();
  });

  it("rejects symlinks that lead out of the root, through a file or a folder", () => {
    symlinkSync(join(outside, "secret.txt"), join(root, "link-file"));
    symlinkSync(outside, join(root, "link-dir"));
    expect(resolveInside(root, "link-file")).toBeNull();
    expect(resolveInside(root, "link-dir/secret.txt")).toBeNull();
    expect(resolveInside(root, "link-dir/not-yet-there.txt")).toBeNull();
  });

  it("follows symlinks that stay inside the root", () => {
    symlinkSync(join(root, "src"), join(root, "alias"));
    expect(resolveInside(root, "alias/app.ts")).toBe(join(root, "src", "app.ts"));
  });

  it("rejects dangling symlinks, whose target cannot be checked", () => {
    symlinkSync(join(outside, "gone.txt"), join(root, "dangling"));
    expect(resolveInside(root, "dangling")).toBeNull();
  });

  it("accepts a root given through a symlink", () => {
    const viaLink = join(base, "root-link");
    symlinkSync(root, viaLink);
    expect(resolveInside(viaLink, "src/app.ts")).toBe(join(root, "src", "app.ts"));
    expect(resolveInside(viaLink, join(viaLink, "src/app.ts"))).toBe(join(root, "src", "app.ts"));
    expect(resolveInside(viaLink, "../outside/secret.txt")).toBeNull();
  });
});

describe("fileExistsInside", () => {
  it("is true for existing files and folders inside the root", async () => {
    expect(await fileExistsInside(root, "src/app.ts")).toBe(true);
    expect(await fileExistsInside(root, "src")).toBe(true);
  });

  it("is false for missing files and for anything outside, even when it exists", async () => {
    symlinkSync(join(outside, "secret.txt"), join(root, "link-file"));
    expect(await fileExistsInside(root, "src/deleted.ts")).toBe(false);
    expect(await fileExistsInside(root, "src/app.ts/child")).toBe(false);
    expect(await fileExistsInside(root, "../outside/secret.txt")).toBe(false);
    expect(await fileExistsInside(root, join(outside, "secret.txt"))).toBe(false);
    expect(await fileExistsInside(root, "link-file")).toBe(false);
    expect(await fileExistsInside(join(base, "no-root"), "src/app.ts")).toBe(false);
  });
});
