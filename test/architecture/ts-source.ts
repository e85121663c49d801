import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";

/** The production TypeScript files below `dir` (tests excluded), as paths relative to it. */
export function productionFiles(dir: string): string[] {
  const walk = (d: string): string[] =>
    readdirSync(d).flatMap((n) => {
      const p = join(d, n);
      if (statSync(p).isDirectory()) return walk(p);
      return n.endsWith(".ts") && !n.endsWith(".test.ts") && !n.endsWith(".d.ts") ? [p] : [];
    });
  return walk(dir)
    .map((p) => relative(dir, p))
    .sort();
}

export function parseSource(name: string, text: string): ts.SourceFile {
  return ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

export function readSource(dir: string, file: string): ts.SourceFile {
  return parseSource(file, readFileSync(join(dir, file), "utf8"));
}

/** Every node of the tree, depth first. */
export function* walk(node: ts.Node): Generator<ts.Node> {
  yield node;
  const children: ts.Node[] = [];
  ts.forEachChild(node, (child) => {
    children.push(child);
  });
  for (const child of children) yield* walk(child);
}

/** 1-based line of a node's start. */
export function lineOf(sf: ts.SourceFile, node: ts.Node): number {
  return sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
}
