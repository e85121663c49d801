import { newSecret } from "./security.js";

/** Loopback names: a server bound to one of these needs no token. */
export function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host === "[::1]" || /^127(\.\d{1,3}){3}$/.test(host);
}

export interface Access {
  /** Required on every request; undefined on loopback. */
  token: string | undefined;
  /** Whether the token came from FIXPOINT_SERVE_TOKEN (else it was generated and must be printed). */
  fromEnv: boolean;
  loopbackOnly: boolean;
}

/**
 * Who may use a server on `host`: on loopback, anyone on this machine (and only under loopback
 * Host names); anywhere else, only holders of the token — FIXPOINT_SERVE_TOKEN, or a new random
 * one printed at start.
 */
export function accessFor(host: string, env: NodeJS.ProcessEnv): Access {
  if (isLoopback(host)) return { token: undefined, fromEnv: false, loopbackOnly: true };
  const fromEnv = env.FIXPOINT_SERVE_TOKEN?.trim();
  return fromEnv
    ? { token: fromEnv, fromEnv: true, loopbackOnly: false }
    : { token: newSecret(), fromEnv: false, loopbackOnly: false };
}
