import { type OpenedProject, openContext } from "../app/project.js";
import type { ConfigFlags } from "../config/load.js";
import type { Io } from "./io.js";

/** Opens the project the command runs in, runs `fn` with its use-case context, closes it. */
export async function withContext<T>(
  io: Io,
  fn: (ctx: OpenedProject) => Promise<T>,
  opts: { flags?: ConfigFlags; create?: boolean } = {},
): Promise<T> {
  const ctx = await openContext(io.cwd, { env: io.env, ...opts });
  try {
    return await fn(ctx);
  } finally {
    await ctx.close();
  }
}
