import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, onTestFinished } from "vitest";

/**
 * Every temporary directory a test makes starts with this prefix, so a check after a run can
 * tell whether anything was left behind in the system temp folder.
 */
export const TEMP_PREFIX = "fixpoint-";

/** Made outside a running test (in `beforeAll`, at module level): removed after the file's tests. */
const outsideTests = new Set<string>();

function removeAll(): void {
  for (const d of outsideTests) rmSync(d, { recursive: true, force: true });
  outsideTests.clear();
}

// Registered while the importing test file is collected (test files are isolated, so this module
// is evaluated once per file): runs after that file's tests, passed or failed.
afterAll(removeAll);

/**
 * A fresh directory under the system temp folder (resolved through symlinks, as git reports
 * paths), removed when the current test finishes — passed or failed — or, when made outside a
 * test, when the file's tests are done.
 */
export function makeTempDir(name = "test-", opts: { forFile?: boolean } = {}): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `${TEMP_PREFIX}${name}`)));
  // Shared by the file's tests (a project made lazily by the first test that needs it).
  if (opts.forFile) {
    outsideTests.add(dir);
    return dir;
  }
  try {
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  } catch {
    outsideTests.add(dir);
  }
  return dir;
}
