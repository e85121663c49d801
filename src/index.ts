/**
 * fixpoint as a library: `createFixpoint(options)` opens a project and returns every use case
 * (add a task, work it to a verdict, show, approve, resume, …) bound to its store, git, agents and
 * clock — the same use cases the CLI runs. The ports are exported so you can supply your own
 * AgentBackend, Store, Git or Clock. See docs/library.md.
 */
export type { AddTaskInput } from "./app/add-task.js";
export type { CheckoutOutcome } from "./app/checkout.js";
export type { CleanAction, CleanResult } from "./app/clean.js";
export type { AppContext } from "./app/context.js";
export type { EditResult, EditTaskInput } from "./app/edit-task.js";
export type {
  DeferFindingInput,
  DismissFindingInput,
  FindingChange,
  ReopenFindingInput,
} from "./app/finding-status.js";
export { createFixpoint, type Fixpoint, type FixpointOptions } from "./app/fixpoint.js";
export type { HumanDecision } from "./app/human.js";
export type { ImproveInput, Improvement } from "./app/improve.js";
export type { AddLearningInput, ListLearningsInput, RemoveLearningInput } from "./app/learnings.js";
export type { TaskLog } from "./app/logs.js";
export type { Restart } from "./app/resume.js";
export type { RetryInput } from "./app/retry.js";
export type { TaskDetails } from "./app/show.js";
export type { StatusQuery } from "./app/status.js";
export type { WorkInput, WorkResult } from "./app/work.js";
export type { ConfigFlags } from "./config/load.js";
export type { Config } from "./config/types.js";
export type * from "./domain/ports.js";
export type {
  FinalVerdict,
  Finding,
  FindingStatus,
  Learning,
  LearningKind,
  LearningOrigin,
  LearningSource,
  ReviewVerdict,
  Run,
  Severity,
  StageExecution,
  Task,
  TaskEvent,
  TaskStatus,
  TaskSummary,
  TaskType,
  TokenUsage,
} from "./domain/types.js";
export { FINAL_VERDICTS, isApproval } from "./domain/types.js";
export type { EngineEvent, EngineListener } from "./engine/events.js";
export { type ErrorCode, FixpointError } from "./errors.js";
export { createNotifier, type NotifierDeps } from "./notify/notifier.js";
export type { StageDef, Workflow, Workflow as WorkflowDefinition } from "./workflow/types.js";
