/**
 * The ports: what the core (engine, findings, workflow) and the application layer need from the
 * outside world. Adapters implement them (`store/sqlite`, `store/postgres`, `git`, `agents/*`,
 * `github`, `util/process-runner`, `util/clock`); tests pass fakes typed against them.
 *
 * Glossary — each concept named once:
 * - Store: the durable state (tasks, runs, stage records, checkpoints, findings, events,
 *   markers). Every write a worker makes is fenced by its lease: a worker that lost the task
 *   writes nothing.
 * - Git: the repository, the task's worktree and its commits; argument vectors only.
 * - AgentBackend / AgentResolver: one stage request in, one result out; `run` never throws for
 *   what an agent does.
 * - ProcessRunner: child processes in their own process group; resolves for every exit.
 * - Clock: time, injected so tests never sleep.
 * - Notifier: tells a person a task finished or needs them; never throws.
 * - GithubClient: pull requests, review threads, comments, issues; typed results or a
 *   `FixpointError("github")` a person can act on.
 */
export type {
  AgentBackend,
  AgentFailure,
  AgentFailureKind,
  AgentProgress,
  AgentRequest,
  AgentResolver,
  AgentResult,
  AgentRole,
  ResolvedAgent,
} from "./agent.js";
export type { Clock } from "./clock.js";
export type { Git } from "./git.js";
export type * from "./github.js";
export type { Notification, Notifier } from "./notifier.js";
export type { ProcessResult, ProcessRunner, ProcessSpec } from "./process.js";
export type * from "./store.js";
