import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * The CLI tests run the real `fixpoint` binary (dist/bin/fixpoint.js, bundled from tsc's
 * dist/cli/main.js): build it once per test run.
 * Under CI a type error fails the run here; locally tsc's output is still used (it emits on
 * error) so one half-edited file does not stop every other test.
 */
export default function setup(): () => void {
  try {
    execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], {
      stdio: "inherit",
    });
  } catch (e) {
    if (process.env.CI) throw e;
    process.stderr.write("global-setup: tsc reported errors; testing what it emitted\n");
  }
  // The binary the CLI tests run is the bundle users get (dist/bin/fixpoint.js).
  execFileSync(process.execPath, ["scripts/bundle-cli.mjs"], { stdio: "inherit" });
  return isolateTempDirs();
}

/**
 * Every temporary directory the tests make goes into one folder for this run (TMPDIR is
 * inherited by the test workers), which is removed at the end, so a run leaves nothing in the
 * system temp folder even when a test forgot to clean up or was killed. What was left behind is
 * listed, and with FIXPOINT_STRICT_TMP=1 fails the run: tests must clean up after themselves.
 */
function isolateTempDirs(): () => void {
  const runDir = realpathSync(mkdtempSync(join(tmpdir(), "fixpoint-testrun-")));
  // Traversable (not listable) by others: the PostgreSQL test server runs as its own user in a
  // folder of its own below this one.
  chmodSync(runDir, 0o711);
  process.env.TMPDIR = runDir;
  return () => {
    let left: string[] = [];
    try {
      left = readdirSync(runDir);
    } catch {
      // already gone
    }
    rmSync(runDir, { recursive: true, force: true });
    if (left.length === 0) return;
    const message = `tests left ${left.length} temporary folder(s) behind: ${left.slice(0, 10).join(", ")}`;
    if (process.env.FIXPOINT_STRICT_TMP === "1") throw new Error(message);
    process.stderr.write(`global-setup: ${message} (removed)\n`);
  };
}
