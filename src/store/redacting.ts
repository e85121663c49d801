import type { Store, StoreOps } from "../domain/store.js";
import { redactDeep } from "../util/redact.js";

/**
 * Defence in depth for SPEC §13: whatever a caller forgot to redact, no secret reaches the
 * database. Every write method (by name, so methods added to the port later are covered too)
 * has its arguments' strings passed through the redactor; reads and the lease bookkeeping pass
 * through untouched. Identity fields (ids, branch, worktree path) are left alone: they must
 * match what git and the engine hold, and they never carry agent output.
 */
const WRITE_METHOD = /^(create|update|commit|save|append|set|release|record|finish|insert|upsert|add)/;
const IDENTITY_KEYS = new Set([
  "id",
  "taskId",
  "runId",
  "parentId",
  "workerId",
  "branch",
  "worktreePath",
  "baseBranch",
  "workflow",
  "key",
]);

function redactArg(value: unknown, env: NodeJS.ProcessEnv): unknown {
  if (typeof value === "string") return redactDeep(value, env);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => redactArg(v, env));
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = IDENTITY_KEYS.has(k) ? v : redactArg(v, env);
  return out;
}

function wrapOps<T extends object>(target: T, env: NodeJS.ProcessEnv): T {
  return new Proxy(target, {
    get(obj, prop, receiver) {
      const value: unknown = Reflect.get(obj, prop, receiver);
      if (typeof value !== "function" || typeof prop !== "string") return value;
      if (prop === "transaction") {
        return (fn: (tx: StoreOps) => Promise<unknown>, opts?: unknown) =>
          Reflect.apply(value, obj, [(tx: StoreOps) => fn(wrapOps(tx, env)), opts]);
      }
      if (!WRITE_METHOD.test(prop)) return value.bind(obj);
      return (...args: unknown[]) =>
        Reflect.apply(
          value,
          obj,
          args.map((a) => redactArg(a, env)),
        );
    },
  });
}

/** The store with every write redacted; `env` (default `process.env`) supplies secret values. */
export function redactingStore(store: Store, env: NodeJS.ProcessEnv = process.env): Store {
  return wrapOps(store, env);
}
