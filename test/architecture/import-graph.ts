import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * The module graph of `src/`: each file (as a path relative to `src/`, e.g. `engine/run-task.ts`)
 * → the files it imports. Static imports, `export … from`, `import type` and dynamic `import("…")`
 * all count: a type import is still a dependency of the layer, and a dynamic import still closes
 * a circle. Only relative specifiers name files of ours; tests (`*.test.ts`) are left out.
 */
export function importGraph(srcDir: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(srcDir)) {
    const from = relative(srcDir, file);
    const targets = specifiers(readFileSync(file, "utf8"))
      .filter((s) => s.startsWith("."))
      .map((s) => relative(srcDir, resolve(dirname(file), s.replace(/\.js$/, ".ts"))));
    graph.set(from, [...new Set(targets)].sort());
  }
  return graph;
}

const SPECIFIER = [
  // import x from "…", import type { X } from "…", export { x } from "…", export * from "…"
  /^\s*(?:import|export)\s+(?:type\s+)?[^;]*?\sfrom\s+["']([^"']+)["']/gm,
  // import "…" (side effects only)
  /^\s*import\s+["']([^"']+)["']/gm,
  // import("…") anywhere, including import("…").Type in a type position
  /\bimport\(\s*["']([^"']+)["']\s*\)/g,
];

/** Every module specifier in a TypeScript source text (comments and strings are not parsed). */
export function specifiers(text: string): string[] {
  const out: string[] = [];
  for (const re of SPECIFIER) for (const m of text.matchAll(re)) if (m[1]) out.push(m[1]);
  return out;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts")) out.push(path);
  }
  return out.sort();
}

/** The import circles: strongly connected components with more than one file, or a self-import. */
export function circles(graph: Map<string, string[]>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) ?? 0, low.get(w) ?? 0));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) ?? 0, idx.get(w) ?? 0));
    }
    if (low.get(v) === idx.get(v)) {
      const scc: string[] = [];
      for (let w = stack.pop(); w !== undefined; w = stack.pop()) {
        onStack.delete(w);
        scc.push(w);
        if (w === v) break;
      }
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return found.sort((a, b) => (a[0] ?? "").localeCompare(b[0] ?? ""));
}

/** The top-level folder of a file under `src/` (`engine`, `cli`, …; `.` for files at the top). */
export function layerOf(file: string): string {
  const parts = file.split(/[\\/]/);
  return parts.length > 1 ? (parts[0] ?? ".") : ".";
}

/** Imports that cross a forbidden boundary, as `from → to` lines. */
export function forbiddenImports(
  graph: Map<string, string[]>,
  rules: Record<string, readonly string[]>,
): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    const banned = rules[layerOf(from)] ?? [];
    for (const to of targets) if (banned.includes(layerOf(to))) out.push(`${from} → ${to}`);
  }
  return out.sort();
}
