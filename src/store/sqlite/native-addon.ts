import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { FixpointError } from "../../errors.js";

/**
 * The path of better-sqlite3's compiled addon, for its `nativeBinding` option.
 *
 * Without the option better-sqlite3 finds its addon through the `bindings` package, which works
 * out the package's folder from a stack trace of its caller. That costs a few milliseconds on every
 * command, and it cannot work once better-sqlite3's JavaScript is bundled into `fixpoint` (the
 * caller is then the bundle): scripts/bundle-cli.mjs bundles it so that V8's code cache covers it
 * too. npm puts the addon in the package's build/Release (prebuild-install's download and a
 * build from source alike); build/Debug is a debug build's.
 */
let found: string | undefined;

export function sqliteAddonPath(): string {
  if (found !== undefined) return found;
  const require = createRequire(import.meta.url);
  let root: string;
  try {
    root = dirname(require.resolve("better-sqlite3/package.json"));
  } catch {
    throw new FixpointError(
      "store",
      "better-sqlite3 is not installed: run `npm install` in fixpoint's folder",
    );
  }
  for (const build of ["Release", "Debug"]) {
    const path = join(root, "build", build, "better_sqlite3.node");
    if (existsSync(path)) {
      found = path;
      return path;
    }
  }
  throw new FixpointError(
    "store",
    `better-sqlite3's native addon is missing from ${join(root, "build")}: run \`npm rebuild better-sqlite3\``,
  );
}
