/**
 * Evaluated just before node-postgres (pg-driver.ts). When loaded, pg asks whether it runs in a
 * Cloudflare Worker: it reads `navigator.userAgent`, and where there is no `navigator` (Node 20)
 * it makes a `Response`, which loads Node's fetch implementation, undici: 20 ms of every command
 * that opens a PostgreSQL store, for a class fixpoint never uses. A `navigator` that names no
 * Worker is put in place while pg loads and taken away after it (restoreNavigator), so no other
 * code sees it; where Node has one of its own, nothing is touched.
 */
const placed = !("navigator" in globalThis);
if (placed)
  Object.defineProperty(globalThis, "navigator", {
    value: { userAgent: `Node.js/${process.versions.node}` },
    configurable: true,
    writable: true,
  });

/** Takes away the `navigator` put in place above, once pg has loaded. */
export function restoreNavigator(): void {
  if (placed) Reflect.deleteProperty(globalThis, "navigator");
}
