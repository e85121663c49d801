import type { GithubConfig } from "../../config/types.js";
import type { Clock } from "../../domain/clock.js";
import type { Git } from "../../domain/git.js";
import type { ProcessRunner } from "../../domain/process.js";
import type { Store } from "../../domain/store.js";
import type { ClientSource } from "./client.js";
import type { GitRemote } from "./remote.js";

/** What the `github` stage's actions (open-pr, ingest, push, reply, await-review, file-issues) use. */
export interface GithubStageDeps {
  client: ClientSource;
  config: GithubConfig;
  git: Git;
  store: Store;
  clock: Clock;
  runner?: ProcessRunner;
  remote?: GitRemote;
}
