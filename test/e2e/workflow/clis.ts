import { type CliName, installClis } from "../cli-install.js";

let pending: Promise<Record<CliName, string>> | undefined;

/**
 * The pinned agent CLIs, installed (or found in the cache) once per test file. Tests await this
 * themselves rather than rely on a `beforeAll`: when the install fails, every test FAILS with the
 * install's error — a failed hook would only mark them skipped.
 */
export function clis(): Promise<Record<CliName, string>> {
  pending ??= installClis();
  return pending;
}

/** For a `beforeAll` with a long timeout: the install happens there, its error is left to the tests. */
export async function warmUp(): Promise<void> {
  await clis().catch(() => undefined);
}
