import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The module as built (test/global-setup.ts): a process of its own, so nothing loaded before counts.
const DRIVER = fileURLToPath(new URL("../../../dist/store/postgres/pg-driver.js", import.meta.url));

describe("pg-driver", () => {
  it("loads node-postgres without Node's fetch implementation, and leaves `navigator` as it found it", () => {
    const probe = `const had = "navigator" in globalThis;
const pg = (await import(${JSON.stringify(DRIVER)})).default;
console.log(JSON.stringify({
  had,
  has: "navigator" in globalThis,
  pool: typeof pg.Pool,
  undici: process.moduleLoadList.some((m) => m.includes("undici")),
}));`;
    const out = execFileSync(process.execPath, ["--input-type=module", "-e", probe], { encoding: "utf8" });
    const seen = JSON.parse(out) as { had: boolean; has: boolean; pool: string; undici: boolean };
    expect(seen).toEqual({ had: seen.had, has: seen.had, pool: "function", undici: false });
  });
});
