import { fileURLToPath } from "node:url";
import fc from "fast-check";
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

  it("finds the specifier of any import form, whatever the path and the imported names", () => {
    const segment = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
    const spec = fc
      .tuple(fc.constantFrom("./", "../", "../../"), fc.array(segment, { minLength: 1, maxLength: 4 }))
      .map(([up, parts]) => `${up}${parts.join("/")}.js`);
    const names = fc.array(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}$/), { minLength: 1, maxLength: 4 });
    const form = fc.constantFrom(
      (s: string, n: string[]) => `import { ${n.join(", ")} } from "${s}";`,
      (s: string, n: string[]) => `import type {\n  ${n.join(",\n  ")},\n} from '${s}';`,
      (s: string, n: string[]) => `export { ${n.join(", ")} } from "${s}";`,
      (s: string) => `export * from "${s}";`,
      (s: string) => `import "${s}";`,
      (s: string, n: string[]) => `const { ${n.join(", ")} } = await import("${s}");`,
    );
    fc.assert(
      fc.property(spec, names, form, (s, n, make) => {
        expect(specifiers(`// header\n${make(s, n)}\nconst x = 1;\n`)).toEqual([s]);
      }),
    );
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
