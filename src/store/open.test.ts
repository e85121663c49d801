import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openStore } from "./open.js";

let root = "";
afterEach(() => {
  if (root !== "") rmSync(root, { recursive: true, force: true });
});

describe("openStore", () => {
  it("opens the project's .fixpoint/fixpoint.db for `sqlite`", async () => {
    root = mkdtempSync(join(tmpdir(), "fixpoint-open-"));
    const store = await openStore("sqlite", root);
    expect(store.kind).toBe("sqlite");
    await store.createTask(
      {
        type: "implement",
        title: "t",
        prompt: "p",
        workflow: "w",
        repo: root,
        baseBranch: "main",
        maxCycles: 1,
      },
      1,
    );
    await store.close();
    expect(existsSync(join(root, ".fixpoint", "fixpoint.db"))).toBe(true);
  });

  it("opens a .db path, relative to the project root", async () => {
    root = mkdtempSync(join(tmpdir(), "fixpoint-open-"));
    const store = await openStore("state/custom.db", root);
    await store.close();
    expect(existsSync(join(root, "state", "custom.db"))).toBe(true);
  });

  it("says PostgreSQL is not available yet, and rejects anything else as config", async () => {
    await expect(openStore("postgres://u@localhost/db", "/nowhere")).rejects.toMatchObject({
      code: "config",
      message: 'PostgreSQL support is not built yet; use database "sqlite" (the default) for now',
    });
    await expect(openStore("mysql://x", "/nowhere")).rejects.toMatchObject({ code: "config" });
  });
});
