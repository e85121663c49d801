import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { detectGates, kdlString, renderInitConfig } from "./init.js";
import { loadConfig } from "./load.js";
import { parseConfigText } from "./parse.js";

let root: string;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "fixpoint-init-"));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function repo(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(root, name);
  await mkdir(dir, { recursive: true });
  for (const [file, text] of Object.entries(files)) await writeFile(join(dir, file), text);
  return dir;
}

const scripts = (s: Record<string, string>) => JSON.stringify({ name: "x", scripts: s });

describe("detectGates", () => {
  test("npm test and lint scripts", async () => {
    const dir = await repo("npm", { "package.json": scripts({ test: "vitest run", lint: "biome check ." }) });
    expect(await detectGates(dir)).toEqual([
      { name: "test", run: "npm test", timeoutMs: 600_000 },
      { name: "lint", run: "npm run lint", timeoutMs: 600_000 },
    ]);
  });

  test("the npm init placeholder test script is not a gate", async () => {
    const dir = await repo("placeholder", {
      "package.json": scripts({ test: 'echo "Error: no test specified" && exit 1' }),
    });
    expect(await detectGates(dir)).toEqual([]);
  });

  test("Makefile, Cargo, Go and Python projects", async () => {
    const make = await repo("make", { Makefile: "build:\n\tcc x.c\n\ntest: build\n\t./run-tests\n" });
    expect((await detectGates(make)).map((g) => g.run)).toEqual(["make test"]);
    const noTarget = await repo("make2", { Makefile: "build:\n\tcc x.c\n# test: later\n" });
    expect(await detectGates(noTarget)).toEqual([]);
    expect(
      (await detectGates(await repo("cargo", { "Cargo.toml": "[package]\n" }))).map((g) => g.run),
    ).toEqual(["cargo test"]);
    expect((await detectGates(await repo("go", { "go.mod": "module x\n" }))).map((g) => g.run)).toEqual([
      "go test ./...",
    ]);
    expect((await detectGates(await repo("py", { "pytest.ini": "[pytest]\n" }))).map((g) => g.run)).toEqual([
      "pytest",
    ]);
  });

  test("two tools offering `test` both become gates with distinct names", async () => {
    const dir = await repo("mixed", { "package.json": scripts({ test: "jest" }), "go.mod": "module x\n" });
    expect((await detectGates(dir)).map((g) => [g.name, g.run])).toEqual([
      ["test", "npm test"],
      ["go-test", "go test ./..."],
    ]);
  });

  test("an empty folder or a broken package.json offers nothing", async () => {
    expect(await detectGates(await repo("empty", {}))).toEqual([]);
    expect(await detectGates(await repo("broken", { "package.json": "{ not json" }))).toEqual([]);
  });
});

describe("renderInitConfig", () => {
  test("the written file loads back to the built-in defaults plus the detected gates", async () => {
    const home = join(root, "home");
    const env = { HOME: home };
    const bare = await repo("bare", {});
    const withFile = await repo("init", {
      "package.json": scripts({ test: "vitest run", lint: "biome check" }),
    });
    const gates = await detectGates(withFile);
    await writeFile(join(withFile, "fixpoint.kdl"), renderInitConfig(gates));

    const expected = await loadConfig({ projectRoot: bare, env, cwd: root });
    const actual = await loadConfig({ projectRoot: withFile, env, cwd: root });
    expect(actual.sources).toEqual([join(withFile, "fixpoint.kdl")]);
    expect({ ...actual, sources: [] }).toEqual({ ...expected, gates, sources: [] });
  });

  test("round-trips gates with quotes, backslashes and odd timeouts, and parses with no gates", () => {
    const gates = [{ name: 'odd "one"', run: 'sh -c "echo \\"hi\\"" \\\n && true', timeoutMs: 5_400_500 }];
    const layer = parseConfigText(renderInitConfig(gates), "/r/fixpoint.kdl", { home: "/h" });
    expect(layer.gates.map(({ name, run, timeoutMs }) => ({ name, run, timeoutMs }))).toEqual(gates);
    expect(parseConfigText(renderInitConfig([]), "/r/fixpoint.kdl", { home: "/h" }).gates).toEqual([]);
  });

  test("kdlString escapes what KDL needs escaped", () => {
    expect(kdlString('a"b\\c\td\u0001')).toBe('"a\\"b\\\\c\\td\\u{1}"');
  });
});
