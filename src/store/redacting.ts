import type { Store } from "../domain/store.js";
import { redactWrites } from "../util/redact-writes.js";

/**
 * Defence in depth for SPEC §13: whatever a caller forgot to redact, no secret reaches the
 * database. Every write method (by name, so methods added to the port later are covered too)
 * has its arguments' strings passed through the redactor; reads and lease bookkeeping pass
 * through untouched; identity fields (ids, branch, worktree path) are left as they are.
 */
const WRITE_METHOD = /^(create|update|commit|save|append|set|release|record|finish|insert|upsert|add)/;
const IDENTITY_KEYS: ReadonlySet<string> = new Set([
  "id",
  "taskId",
  "runId",
  "parentId",
  "workerId",
  "branch",
  "worktreePath",
  "repo",
  "baseBranch",
  "workflow",
  "key",
  // A checkpoint's counters (stage id → visit count, stage id → outcome): ids from the workflow
  // file and numbers, never agent text, and walking them per stage cost more than their write.
  "visits",
  "outcomes",
]);

/** The store with every write redacted; `env` (default `process.env`) supplies secret values. */
export function redactingStore(store: Store, env: NodeJS.ProcessEnv = process.env): Store {
  return redactWrites(store, { writes: WRITE_METHOD, identityKeys: IDENTITY_KEYS, env });
}
