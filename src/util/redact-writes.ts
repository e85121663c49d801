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
  const arg = (value: unknown): unknown => redactDeep(value, env, opts.identityKeys);
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
