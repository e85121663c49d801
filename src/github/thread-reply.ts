import type { GithubClient, ReviewThread } from "../domain/github.js";
import { FixpointError } from "../errors.js";
import { type Disposition, REPLY_MARKER, replyBody } from "./render.js";

/** Whether fixpoint has already answered in this thread (its reply is the last word). */
export function alreadyAnswered(thread: ReviewThread): boolean {
  return thread.comments.at(-1)?.body.includes(REPLY_MARKER) ?? false;
}

/**
 * Resolution policy (SPEC §11): only a fixed finding resolves its thread, and only when a bot
 * opened it — a person's thread stays for that person to resolve unless the config says
 * otherwise. A declined thread stays open so a human sees the reason.
 */
export function shouldResolve(
  thread: ReviewThread,
  d: Disposition,
  opts: { resolveHumanThreads: boolean },
): boolean {
  return d.status === "fixed" && !thread.isResolved && (thread.authorIsBot || opts.resolveHumanThreads);
}

/** The hidden tag a reply carries when its caller keys it (the store marker's key). */
export function replyKeyTag(key: string): string {
  return `<!-- fixpoint:reply-key:${key} -->`;
}

/**
 * Replies with the disposition and resolves the thread when the policy allows. Idempotent: a
 * thread whose last comment is already our reply gets no second one, nor does a thread holding
 * a reply tagged with `opts.key` anywhere (a reply posted before a crash, followed by someone
 * else's comment before the next worker came).
 */
export async function respondToThread(
  client: Pick<GithubClient, "replyToReviewComment" | "resolveReviewThread">,
  prNumber: number,
  thread: ReviewThread,
  disposition: Disposition,
  opts: { resolveHumanThreads: boolean; key?: string },
): Promise<{ replied: boolean; resolved: boolean }> {
  const first = thread.comments[0]?.databaseId;
  if (first === undefined || first === null) {
    throw new FixpointError("github", `review thread ${thread.id} has no comment to reply to`);
  }
  const tag = opts.key === undefined ? null : replyKeyTag(opts.key);
  const replied =
    !alreadyAnswered(thread) && !(tag !== null && thread.comments.some((c) => c.body.includes(tag)));
  if (replied)
    await client.replyToReviewComment(
      prNumber,
      first,
      tag === null ? replyBody(disposition) : `${replyBody(disposition)}\n${tag}`,
    );
  const resolved = shouldResolve(thread, disposition, opts);
  if (resolved) await client.resolveReviewThread(thread.id);
  return { replied, resolved };
}
