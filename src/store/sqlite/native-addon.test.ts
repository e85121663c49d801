import { existsSync } from "node:fs";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { sqliteAddonPath } from "./native-addon.js";

describe("sqliteAddonPath", () => {
  it("names better-sqlite3's compiled addon, which opens a database", () => {
    const path = sqliteAddonPath();
    expect(path).toMatch(/better_sqlite3\.node$/);
    expect(existsSync(path)).toBe(true);
    const db = new Database(":memory:", { nativeBinding: path });
    expect(db.prepare("SELECT 1 + 1 AS n").get()).toEqual({ n: 2 });
    db.close();
  });
});
