import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { circles, forbiddenImports, importGraph, specifiers } from "./import-graph.js";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));
const ADAPTERS = ["store", "git", "agents", "github", "cli", "app", "server"] as const;

/** Who may not import whom (docs/architecture.md): the core imports no adapter; app no front end. */
const RULES = {
  engine: ADAPTERS,
  findings: ADAPTERS,
  workflow: ADAPTERS,
  domain: [...ADAPTERS, "engine", "findings", "workflow"],
  app: ["cli", "server"],
} as const;

describe("the module graph of src/", () => {
  const graph = importGraph(SRC);

  it("has no import circle", () => {
    expect(circles(graph).map((c) => c.join(" ⇄ "))).toEqual([]);
  });

  it("keeps the core free of adapters and the application layer free of front ends", () => {
    expect(forbiddenImports(graph, RULES)).toEqual([]);
  });
});

describe("the checker itself", () => {
  it("reads every kind of specifier", () => {
    const text = [
      'import { a } from "./a.js";',
      'import type { B } from "../b.js";',
      'export * from "./c.js";',
      'export { d } from "./d.js";',
      'import "./e.js";',
      'const f = await import("./f.js");',
      'type G = import("./g.js").G;',
      "import {\n  h,\n  i,\n} from './h.js';",
    ].join("\n");
    expect(specifiers(text).sort()).toEqual([
      "../b.js",
      "./a.js",
      "./c.js",
      "./d.js",
      "./e.js",
      "./f.js",
      "./g.js",
      "./h.js",
    ]);
  });

  it("finds a circle through a dynamic import and a self-import, and not a chain", () => {
    const g = new Map([
      ["cli/a.ts", ["cli/b.ts"]],
      ["cli/b.ts", ["cli/c.ts"]],
      ["cli/c.ts", ["cli/a.ts"]],
      ["x/self.ts", ["x/self.ts"]],
      ["y/1.ts", ["y/2.ts"]],
      ["y/2.ts", []],
    ]);
    expect(circles(g)).toEqual([["cli/a.ts", "cli/b.ts", "cli/c.ts"], ["x/self.ts"]]);
  });

  it("names a core file that imports an adapter", () => {
    const g = new Map([
      ["engine/run.ts", ["store/sqlite/x.ts", "domain/store.ts"]],
      ["app/a.ts", ["cli/io.ts", "engine/run.ts"]],
    ]);
    expect(forbiddenImports(g, RULES)).toEqual(["app/a.ts → cli/io.ts", "engine/run.ts → store/sqlite/x.ts"]);
  });
});
