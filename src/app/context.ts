import { userInfo } from "node:os";
import type { Config } from "../config/types.js";
import type { Clock } from "../domain/clock.js";
import type { Git } from "../domain/git.js";
import type { Notifier } from "../domain/notifier.js";
import type { Store } from "../domain/store.js";

/**
 * What every use case may touch: the project's store, git, configuration and clock. Time comes
 * only from `clock`; `actor` names who acts (recorded on every event a use case writes).
 */
export interface AppContext {
  store: Store;
  git: Git;
  config: Config;
  clock: Clock;
  /** The repository root. */
  root: string;
  /** `<root>/.fixpoint`: review artifacts, transcripts, the default SQLite file. */
  dir: string;
  /** The environment agents and the GitHub client read (default `process.env`). */
  env: NodeJS.ProcessEnv;
  /** Who acts: the OS user for the CLI, whatever a library caller or the dashboard says. */
  actor: string;
  notifier?: Notifier;
}

/** The OS user's name, or `unknown` when the system cannot say (a container without passwd). */
export function osUser(): string {
  try {
    return userInfo().username;
  } catch {
    // No passwd entry for this uid: nothing better to record.
    return "unknown";
  }
}
