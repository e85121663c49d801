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

  it("opens a sqlite: prefixed path", async () => {
    root = mkdtempSync(join(tmpdir(), "fixpoint-open-"));
    const store = await openStore("sqlite:.fixpoint/other.db", root);
    await store.close();
    expect(existsSync(join(root, ".fixpoint", "other.db"))).toBe(true);
  });

  it("names an unreachable PostgreSQL server and the setting in one line, and rejects anything else as config", async () => {
    const failure = openStore("postgres://u:secret@127.0.0.1:1/db", "/nowhere");
    await expect(failure).rejects.toMatchObject({ code: "store" });
    const message = await failure.catch((e: unknown) => (e instanceof Error ? e.message : ""));
    expect(message).toMatch(/^cannot reach PostgreSQL at postgres:\/\/127\.0\.0\.1:1\/db \(ECONNREFUSED\)/);
    expect(message).toContain("FIXPOINT_DATABASE_URL");
    expect(message).not.toContain("secret");
    expect(message).not.toContain("\n");
    await expect(openStore("mysql://x", "/nowhere")).rejects.toMatchObject({ code: "config" });
  });
});
