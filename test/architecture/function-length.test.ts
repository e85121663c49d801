import { fileURLToPath } from "node:url";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { lineOf, parseSource, productionFiles, readSource, walk } from "./ts-source.js";

const SRC = fileURLToPath(new URL("../../src/", import.meta.url));
/** Issue 9 item 6: a body longer than this is split where that makes it clearer. */
const MAX_LINES = 60;

/** Functions allowed past the limit, each with why one piece reads better than several. */
const ALLOWED: Readonly<Record<string, string>> = {};

type FunctionLike = ts.FunctionLikeDeclaration & { body: ts.Block | ts.Expression };

/** `file:name` for a function, method, accessor or arrow with a body. */
function nameOf(sf: ts.SourceFile, fn: FunctionLike): string {
  if (fn.name !== undefined) {
    const owner = ts.isClassLike(fn.parent) && fn.parent.name ? `${fn.parent.name.text}.` : "";
    return owner + fn.name.getText(sf);
  }
  const parent = fn.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(sf);
  return `(anonymous at line ${lineOf(sf, fn)})`;
}

/** The 0-based lines a function's body spans. */
function bodyLines(sf: ts.SourceFile, body: ts.Node): [number, number] {
  return [
    sf.getLineAndCharacterOfPosition(body.getStart(sf)).line,
    sf.getLineAndCharacterOfPosition(body.getEnd()).line,
  ];
}

/** The functions nested directly in `fn` (not inside another nested one). */
function nestedFunctions(fn: ts.FunctionLikeDeclaration): ts.FunctionLikeDeclaration[] {
  const out: ts.FunctionLikeDeclaration[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body !== undefined) {
      out.push(node as ts.FunctionLikeDeclaration);
      return;
    }
    ts.forEachChild(node, visit);
  };
  if (fn.body) ts.forEachChild(fn.body, visit);
  return out;
}

/**
 * Every function longer than `max` lines of its own, keyed by `file:name`. Its own lines are its
 * body's, less the bodies of the functions written inside it, which are measured on their own:
 * a factory of ten short methods is ten short functions, not one long one.
 */
function longFunctions(sf: ts.SourceFile, file: string, max: number): Map<string, number> {
  const found = new Map<string, number>();
  for (const node of walk(sf)) {
    if (!ts.isFunctionLike(node)) continue;
    const fn = node as ts.FunctionLikeDeclaration;
    if (fn.body === undefined) continue;
    const [start, end] = bodyLines(sf, fn.body);
    const own = new Set<number>();
    for (let l = start; l <= end; l++) own.add(l);
    for (const inner of nestedFunctions(fn)) {
      const [s, e] = bodyLines(sf, inner.body ?? inner);
      // The lines that open and close the inner body still hold the outer function's code.
      for (let l = s + 1; l < e; l++) own.delete(l);
    }
    if (own.size > max) found.set(`${file}:${nameOf(sf, fn as FunctionLike)}`, own.size);
  }
  return found;
}

describe("functions stay short enough to read", () => {
  const all = new Map<string, number>();
  for (const file of productionFiles(SRC)) {
    for (const [k, v] of longFunctions(readSource(SRC, file), file, MAX_LINES)) all.set(k, v);
  }

  it(`no function body in src/ is over ${MAX_LINES} lines unless allowed, with a reason`, () => {
    const over = [...all].filter(([k]) => ALLOWED[k] === undefined).map(([k, n]) => `${k} (${n} lines)`);
    expect(over).toEqual([]);
  });

  it("the allowlist names only functions that are still long (a split one leaves it)", () => {
    expect(Object.keys(ALLOWED).filter((k) => !all.has(k))).toEqual([]);
  });

  it("the checker measures bodies of every kind of function", () => {
    const body = (n: number) => Array.from({ length: n }, (_, i) => `  x${i}();`).join("\n");
    const text = [
      `function long() {\n${body(61)}\n}`,
      `function short() {\n${body(58)}\n}`,
      `const arrow = () => {\n${body(70)}\n};`,
      `class C {\n  method() {\n${body(65)}\n  }\n}`,
      `function factory() {\n  return {\n    a() {\n${body(40)}\n    },\n    b: () => {\n${body(40)}\n    },\n  };\n}`,
    ].join("\n");
    expect([...longFunctions(parseSource("x.ts", text), "x.ts", 60)]).toEqual([
      ["x.ts:long", 63],
      ["x.ts:arrow", 72],
      ["x.ts:C.method", 67],
    ]);
  });
});
