import type { AgentRequest } from "../domain/agent.js";

/**
 * The prompt cut at its cache breakpoints (AgentRequest.cacheBreaks): the pieces in order, each
 * saying whether a breakpoint follows it. Offsets outside the prompt, out of order or leaving an
 * empty piece are dropped; at most `limit` breakpoints are kept, the last ones (the longest
 * shared prefixes are the ones worth caching).
 */
export interface PromptPiece {
  text: string;
  cacheBreak: boolean;
}

export function promptPieces(
  req: Pick<AgentRequest, "prompt" | "cacheBreaks">,
  limit: number,
): PromptPiece[] {
  const { prompt } = req;
  const offsets: number[] = [];
  for (const at of req.cacheBreaks ?? []) {
    if (Number.isInteger(at) && at > (offsets.at(-1) ?? 0) && at <= prompt.length) offsets.push(at);
  }
  const kept = offsets.slice(Math.max(0, offsets.length - limit));
  const pieces: PromptPiece[] = [];
  let from = 0;
  for (const at of kept) {
    pieces.push({ text: prompt.slice(from, at), cacheBreak: true });
    from = at;
  }
  if (from < prompt.length || pieces.length === 0)
    pieces.push({ text: prompt.slice(from), cacheBreak: false });
  return pieces;
}

/** One cache key per task and cycle: the reviewers of a cycle share their prompt's prefix. */
export function promptCacheKey(req: Pick<AgentRequest, "taskId" | "cycle">): string {
  return `fixpoint:${req.taskId}:${req.cycle}`;
}
