import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

type Gc = (opts: { type: "minor" }) => void;
let gc: Gc | null | undefined;

/**
 * Collects the young generation now: frees the backing memory of Buffers that are no longer
 * referenced, so the next ones reuse it instead of faulting fresh pages in. For a long listing
 * (`status --json` at 100,000 tasks reads 100 pages of 400 KiB each): V8 would otherwise not
 * collect before the process ends, since the pages live outside its heap. Costs about 10 ms the
 * first time (loading node:v8, which the CLI bundle loads on first use, and a context), so callers
 * use it only when much more is at stake. Does nothing where V8 refuses the flag.
 */
export function collectYoungGarbage(): void {
  if (gc === undefined) gc = loadGc();
  gc?.({ type: "minor" });
}

function loadGc(): Gc | null {
  try {
    setFlagsFromString("--expose-gc");
    const found: unknown = runInNewContext("typeof gc === 'function' ? gc : null");
    return typeof found === "function" ? (found as Gc) : null;
  } catch {
    return null;
  }
}
