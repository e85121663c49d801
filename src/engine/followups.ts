import type { StoreOps } from "../domain/store.js";
import { type FinalVerdict, type Finding, isApproval } from "../domain/types.js";
import { fenceUntrusted } from "../findings/fence.js";
import { isBlocking } from "../findings/severity.js";
import type { RunEnv } from "./run-env.js";

/**
 * When a loop ends, what it did not settle becomes follow-up tasks (SPEC §8 rule 7, seed 001):
 * blocked and deferred findings, and non-blocking open ones when `followups` is on. With GitHub
 * configured the workflow's `file-issues` step files issues instead. Each follow-up is created at
 * most once (its id is derived from the finding), linked to its origin, and waits for a person:
 * `fixpoint resume <id>` queues it. Writes through `store` (the run's finishing transaction).
 */
export async function createFollowups(
  env: RunEnv,
  store: StoreOps,
  verdict: FinalVerdict,
): Promise<string[]> {
  const { deps, task, registry } = env;
  if (deps.config.github) return [];
  const threshold = deps.config.defaults.blockingSeverity;
  const candidates = registry.all().filter((f) => {
    if (f.status === "blocked" || f.status === "deferred") return true;
    const live = f.status === "open" || f.status === "fixed";
    return (
      live && deps.config.defaults.followups && isApproval(verdict) && !isBlocking(f.severity, threshold)
    );
  });
  const created: string[] = [];
  const now = deps.clock.now();
  for (const f of candidates) {
    const { task: follow, created: isNew } = await store.createTaskOnce(
      {
        id: `${task.id}.${f.id}`,
        type: "implement",
        title: `Follow-up of ${task.id}: ${f.title}`.slice(0, 100),
        prompt: followupPrompt(task.id, f),
        workflow: task.workflow,
        repo: task.repo,
        baseBranch: task.baseBranch,
        maxCycles: task.maxCycles,
        budget: task.budget,
        agents: task.agents,
        parentId: task.id,
        meta: { origin: task.id, findingIds: [f.id] },
      },
      now,
    );
    if (!isNew) continue;
    await store.updateTask(
      follow.id,
      {
        status: "needs_human",
        reason: `follow-up of ${task.id} (${f.id}, ${f.status}); \`fixpoint resume ${follow.id}\` queues it`,
      },
      now,
    );
    created.push(follow.id);
  }
  if (created.length) {
    await store.appendEvents(
      [{ taskId: task.id, runId: env.runId, type: "followups.created", data: { tasks: created } }],
      now,
    );
  }
  return created;
}

function followupPrompt(origin: string, f: Finding): string {
  const where = f.file
    ? `${f.file}${f.lineStart ? `:${f.lineStart}${f.lineEnd && f.lineEnd !== f.lineStart ? `-${f.lineEnd}` : ""}` : ""}`
    : "(no file)";
  const attempts = f.attempts.map(
    (a) =>
      `- cycle ${a.cycle}: ${a.status} — ${a.justification}${a.rejection ? ` (rejected: ${a.rejection})` : ""}`,
  );
  return [
    `Follow up on finding ${f.id} [${f.severity}, ${f.status}] left by task ${origin} at ${where}.`,
    "",
    fenceUntrusted(
      `finding ${f.id}`,
      `${f.title}\n\n${f.body}${f.suggestedFix ? `\n\nSuggested fix: ${f.suggestedFix}` : ""}`,
    ),
    "",
    attempts.length ? `Earlier attempts:\n${attempts.join("\n")}` : "No fix was attempted yet.",
  ].join("\n");
}
