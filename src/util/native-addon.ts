import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

/**
 * fixpoint's native addons (binding.gyp's targets, native/*.cc), built by `npm install` on Linux
 * and macOS into build/Release (scripts/build-native.mjs). Each is optional: without it, the code that uses
 * it does the same in JavaScript.
 */

/**
 * Where `npm install` puts addon `name`: build/Release in fixpoint's folder, two folders up from
 * this module in the sources (src/util), the library (dist/util) and the CLI bundle (dist/bin),
 * three from the benchmarks' build (dist-bench/src/util).
 */
export function nativeAddonPath(name: string): string {
  const file = `build/Release/${name}.node`;
  return (
    [`../../${file}`, `../../../${file}`]
      .map((rel) => fileURLToPath(new URL(rel, import.meta.url)))
      .find((path) => existsSync(path)) ?? fileURLToPath(new URL(`../../${file}`, import.meta.url))
  );
}

/**
 * Addon `name`, or null where it is not built, on another system than `systems`, or built for
 * another Node or machine.
 */
export function loadNativeAddon<T>(name: string, systems: readonly NodeJS.Platform[] = ["linux"]): T | null {
  if (!systems.includes(process.platform)) return null;
  const path = nativeAddonPath(name);
  if (!existsSync(path)) return null;
  try {
    return createRequire(import.meta.url)(path) as T;
  } catch {
    return null;
  }
}

/**
 * A writer of a PostgreSQL store's `status` rows (native/copy-json.cc, native/copy-lines.cc):
 * built on Linux and macOS, and set aside with FIXPOINT_NATIVE_ROWS=0.
 */
export function loadRowWriter<T>(name: string): T | null {
  return process.env.FIXPOINT_NATIVE_ROWS === "0" ? null : loadNativeAddon<T>(name, ["linux", "darwin"]);
}
