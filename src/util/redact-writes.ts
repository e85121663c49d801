import { redactDeep } from "./redact.js";

/**
 * Wraps a port (the store, the GitHub client) so that every write — a method whose name matches
 * `writes`, including methods added to the port later — has the strings in its arguments passed
 * through the redactor. Reads pass through untouched. Values under `identityKeys` (ids, branch
 * names, paths) are left alone: they must match what git and the engine hold, and they never
 * carry agent output. A method named `transaction` gets its callback's handle wrapped the same way.
 */
export function redactWrites<T extends object>(
  target: T,
  opts: { writes: RegExp; identityKeys: ReadonlySet<string>; env?: NodeJS.ProcessEnv },
): T {
  // Read once: `process.env` is slow to scan (every read crosses into C++), and scanning it for
  // each string written cost more than the write itself. fixpoint never changes its own
  // environment while it runs; a wrapped port sees the values it was created with.
  const env = opts.env === undefined || opts.env === process.env ? { ...process.env } : opts.env;
  // Returns `value` itself when nothing in it changed: a stage's commit is written every stage,
  // and copying every object of it was most of this wrapper's cost (issue 10).
  const arg = (value: unknown): unknown => {
    if (typeof value === "string") return redactDeep(value, env);
    if (value === null || typeof value !== "object") return value;
    if (Array.isArray(value)) {
      let out: unknown[] | null = null;
      for (let i = 0; i < value.length; i++) {
        const r = arg(value[i]);
        if (r === value[i]) continue;
        out ??= value.slice();
        out[i] = r;
      }
      return out ?? value;
    }
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) return value;
    let out: Record<string, unknown> | null = null;
    for (const k in value) {
      if (!Object.hasOwn(value, k) || opts.identityKeys.has(k)) continue;
      const v = (value as Record<string, unknown>)[k];
      const r = arg(v);
      if (r === v) continue;
      out ??= { ...value };
      out[k] = r;
    }
    return out ?? value;
  };
  const wrap = <U extends object>(obj: U): U =>
    new Proxy(obj, {
      get(o, prop, receiver) {
        const value: unknown = Reflect.get(o, prop, receiver);
        if (typeof value !== "function" || typeof prop !== "string") return value;
        if (prop === "transaction") {
          return (fn: (tx: object) => Promise<unknown>, ...rest: unknown[]) =>
            Reflect.apply(value, o, [(tx: object) => fn(wrap(tx)), ...rest]);
        }
        if (!opts.writes.test(prop)) return value.bind(o);
        return (...args: unknown[]) => Reflect.apply(value, o, args.map(arg));
      },
    });
  return wrap(target);
}
