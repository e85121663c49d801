import type { GithubConfig } from "../../config/types.js";
import type { GithubClient } from "../../domain/github.js";
import type { ProcessRunner } from "../../domain/process.js";
import { redactWrites } from "../../util/redact-writes.js";
import { createGithubClient } from "../client.js";
import { resolveGithubToken } from "../token.js";

/** A client or a way to make one on first use (the token lookup may run `gh auth token`). */
export type ClientSource = GithubClient | (() => Promise<GithubClient>);

/**
 * The client for the configured repository. Its per-call bound is `comment-timeout`, so a PR
 * feedback read that never answers stops at the same deadline as the feedback fetch.
 */
export async function githubClientFor(
  config: GithubConfig,
  env: NodeJS.ProcessEnv,
  runner?: ProcessRunner,
): Promise<GithubClient> {
  const token = await resolveGithubToken(env, runner);
  // Whatever fixpoint posts (PR bodies, thread replies, tech-debt issues, comments) is redacted.
  const client = createGithubClient({
    repo: config.repo,
    token,
    timeoutMs: config.commentTimeoutMs,
    ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
  });
  return redactWrites(client, {
    writes: /^(create|update|reply|add|post|edit)/,
    identityKeys: GITHUB_IDENTITY,
  });
}

/** Branch names and labels must reach GitHub as they are. */
const GITHUB_IDENTITY: ReadonlySet<string> = new Set(["head", "base", "labels"]);

/** Resolves a ClientSource once and remembers the answer (or the failure, which is retried next call). */
export function memoClient(source: ClientSource): () => Promise<GithubClient> {
  if (typeof source !== "function") return async () => source;
  let pending: Promise<GithubClient> | null = null;
  return () => {
    pending ??= source().catch((e: unknown) => {
      pending = null;
      throw e;
    });
    return pending;
  };
}
