import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, onTestFinished } from "vitest";

/**
 * Every temporary directory a test makes starts with this prefix, so a check after a run can
 * tell whether anything was left behind in the system temp folder.
 */
export const TEMP_PREFIX = "fixpoint-";

const outsideTests = new Set<string>();
let hooked = false;

/**
 * A fresh directory under the system temp folder (resolved through symlinks, as git reports
 * paths), removed when the current test finishes — passed or failed — or, when made outside a
 * test (in `beforeAll`, at module level), when the file's tests are done.
 */
export function makeTempDir(name = "test-"): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `${TEMP_PREFIX}${name}`)));
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    onTestFinished(remove);
  } catch {
    // Not inside a running test: clean up after the file instead.
    outsideTests.add(dir);
    if (!hooked) {
      hooked = true;
      try {
        afterAll(() => {
          for (const d of outsideTests) rmSync(d, { recursive: true, force: true });
          outsideTests.clear();
        });
      } catch {
        process.once("exit", () => {
          for (const d of outsideTests) rmSync(d, { recursive: true, force: true });
        });
      }
    }
  }
  return dir;
}
