import type { GithubConfig } from "../config/types.js";
import type { GithubClient } from "../domain/github.js";
import { FixpointError } from "../errors.js";
import type { GitRemote } from "../github/stage/remote.js";
import type { AppContext } from "./context.js";

/** The GitHub side of a project: its config, a client and the `origin` remote. */
export interface ProjectGithub {
  config: GithubConfig;
  client: GithubClient;
  remote: GitRemote;
}

/** The project's GitHub connection; a `config` error when fixpoint.kdl has no `github` node. */
export async function projectGithub(ctx: Pick<AppContext, "config" | "env">): Promise<ProjectGithub> {
  const config = ctx.config.github;
  if (!config) {
    throw new FixpointError(
      "config",
      'GitHub is not configured: add `github repo="owner/name"` to fixpoint.kdl',
    );
  }
  // Loaded on demand: a project without GitHub never imports the client.
  const [{ githubClientFor }, { createGitRemote }] = await Promise.all([
    import("../github/stage/client.js"),
    import("../github/stage/remote.js"),
  ]);
  return { config, client: await githubClientFor(config, ctx.env), remote: createGitRemote() };
}
