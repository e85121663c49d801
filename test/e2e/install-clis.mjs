// Installs the pinned agent CLIs for the end-to-end suites (run by .ci/run before `npm test`).
// The one source of the pins and the cache layout is test/e2e/cli-install.ts: this script
// transpiles that module (it imports only Node built-ins) with the project's TypeScript and calls
// installClis(). An install already in the cache is reused. Exits 1 when an install fails; the
// e2e suites then try again in their beforeAll and FAIL (never skip) if they cannot.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import ts from "typescript";

const source = readFileSync(fileURLToPath(new URL("./cli-install.ts", import.meta.url)), "utf8");
const { outputText } = ts.transpileModule(source, {
  compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
});
const dir = mkdtempSync(join(tmpdir(), "fixpoint-cli-install-"));
const file = join(dir, "cli-install.mjs");
writeFileSync(file, outputText);
const started = Date.now();
try {
  const { installClis, cacheRoot, PINNED } = await import(pathToFileURL(file).href);
  console.log(
    `agent CLIs: ${Object.values(PINNED)
      .map((p) => `${p.pkg}@${p.version}`)
      .join(", ")} in ${cacheRoot()}`,
  );
  const bins = await installClis();
  for (const [name, bin] of Object.entries(bins)) console.log(`  ${name}: ${bin}`);
  console.log(`  ready in ${((Date.now() - started) / 1000).toFixed(1)}s`);
} catch (e) {
  console.error(`installing the agent CLIs failed: ${e instanceof Error ? e.message : String(e)}`);
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
