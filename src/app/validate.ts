import type { z } from "zod";
import { FixpointError } from "../errors.js";

/**
 * Validates a use case's input: a `usage` error naming every bad field (the CLI exits 2, a library
 * caller or the dashboard sees the same message and code), never a stack from deep inside.
 */
export function parseInput<S extends z.ZodTypeAny>(what: string, schema: S, input: unknown): z.output<S> {
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  const problems = r.error.issues.map((i) => `${i.path.length ? i.path.join(".") : "input"}: ${i.message}`);
  throw new FixpointError("usage", `${what}: ${problems.join("; ")}`);
}
