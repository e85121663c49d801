/** Set by the launcher of the bundled CLI (src/cli/launcher.ts): Node's own `import()`. */
declare const __fixpointImport: ((url: string) => Promise<unknown>) | undefined;

/**
 * `import()` of a user's ES module by URL (a scripted agent's handler). In the bundled `fixpoint`
 * the code runs from V8's code cache, where Node 20 gives a dynamic `import()` no loader ("A
 * dynamic import callback was not specified"), so the launcher hands in its own; everywhere else
 * (the library, tsc's build) this is a plain `import()`.
 */
export function importFile(url: string): Promise<unknown> {
  return typeof __fixpointImport === "function" ? __fixpointImport(url) : import(url);
}
