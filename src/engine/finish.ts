import { type FinalVerdict, isApproval, type TaskStatus } from "../domain/types.js";
import { toStoredReviewIssues } from "../findings/stored-issues.js";
import { redactSecrets } from "../util/redact.js";
import { budgetState } from "./budget.js";
import { encodeCheckpoint, writeSnapshot } from "./checkpoint.js";
import { crashPoint } from "./crash-points.js";
import { createFollowups } from "./followups.js";
import { hasLearnings, type StageRecord } from "./record.js";
import { type RunEnd, type RunEnv, relCycle } from "./run-env.js";
import { saveInterruptedWork } from "./run-setup.js";
import type { RunState } from "./state.js";
import { deriveFinalVerdict } from "./verdict.js";

export type { RunEnd };

export interface RunOutcome {
  end: RunEnd;
  verdict: FinalVerdict | null;
  status: TaskStatus;
  reason: string | null;
}

/**
 * Ends a run: derives the final verdict (SPEC §9) and writes, in ONE fenced transaction, the last
 * stage's record when there is one, the final checkpoint, the registry changes, the verdict on the
 * task and the run, the blocking findings of a run that did not end approved (seed 002), the
 * follow-up tasks and the events. A worker killed before it leaves the run as it was before
 * (resumable from its last checkpoint); killed after, the run is over. An interrupted run stays
 * resumable from its checkpoint.
 */
export async function finishRun(
  env: RunEnv,
  state: RunState,
  end: RunEnd,
  last?: StageRecord,
): Promise<RunEnd> {
  const { deps, task, runId, registry } = env;
  // A reply held for a record is saved first, as it would have been when the agent exited.
  await env.reply.saveNow();
  // The end writes the task's row itself; no older position may land on top of it.
  await env.position.stop();
  // The workflow's own escalate route leaves through an exit when the budget ran out; say so.
  const budget = await budgetState(task, runId, deps);
  const budgetLeft = end.kind === "exit" ? budget.left(state) : true;
  const verdictAndReason = verdictFor(env, state, end, budgetLeft);
  const verdict = verdictAndReason.verdict;
  // Reasons quote agent errors, which can quote keys.
  const reason = redactSecrets(verdictAndReason.reason, env.redactEnv);
  const interrupted = end.kind === "interrupted";
  if (last) await env.branch?.push(last.stage.headAfter);
  if (end.kind === "budget") await saveInterruptedWork(task, env.workdir, deps, end.stageId);
  if (!interrupted) {
    state.stoppedAt =
      end.kind === "stopped" ? (end.stageId ?? state.next) : end.kind === "budget" ? end.stageId : null;
    state.next = null;
    state.final = { verdict, reason };
  }
  const stored = isApproval(verdict)
    ? undefined
    : toStoredReviewIssues(registry.all(), deps.config.defaults.blockingSeverity);
  const drained = registry.drainChanges();
  const now = deps.clock.now();
  const write = encodeCheckpoint(state, env.counters, last ? [last.stage.stageId] : [], {
    taskId: task.id,
    runId,
  });
  const status = await deps.store.transaction(
    async (tx) => {
      const current = await tx.getTask(task.id);
      const cancelled = current?.status === "cancelled";
      const status: TaskStatus = cancelled ? "cancelled" : isApproval(verdict) ? "completed" : "needs_human";
      await tx.commitStage({
        taskId: task.id,
        runId,
        stage: last?.stage ?? null,
        checkpoint: { state: write.state },
        ...(write.markers.length > 0 ? { markers: write.markers } : {}),
        findings: drained.findings,
        ...(hasLearnings(drained.learnings) ? { learnings: drained.learnings } : {}),
        events: [
          ...drained.events.map((e) => ({ ...e, runId })),
          ...(last?.events ?? []),
          { taskId: task.id, runId, type: "task.finished", data: { verdict, reason, status, end: end.kind } },
        ],
        task: {
          status,
          finalVerdict: verdict,
          reason,
          currentStage: interrupted ? state.next : null,
          cycle: relCycle(state),
        },
        now,
      });
      await writeSnapshot(tx, write, now);
      if (end.kind === "exit") await createFollowups(env, tx, verdict);
      const run = await tx.getRun(runId);
      await tx.updateRun(
        runId,
        {
          status: interrupted ? "interrupted" : end.kind === "stopped" ? "failed" : "completed",
          finalVerdict: verdict,
          reason,
          endedAt: now,
          meta: { ...(run?.meta ?? {}), lastReviewIssues: stored?.length ? stored : undefined },
        },
        now,
      );
      return status;
    },
    { fence: deps.lease },
  );
  crashPoint("verdict-written");
  last?.announce();
  deps.listener({
    type: "task.finished",
    taskId: task.id,
    verdict,
    status,
    reason,
    cycles: relCycle(state),
    branch: task.branch,
    // The task's spend: its earlier runs' and this one's.
    costUsd: budget.spentUsd(state),
  });
  return end;
}

function verdictFor(
  env: RunEnv,
  state: RunState,
  end: RunEnd,
  budgetLeft: boolean,
): { verdict: FinalVerdict; reason: string } {
  const { deps, task, registry } = env;
  switch (end.kind) {
    case "exit": {
      const derived = deriveFinalVerdict(state, registry, {
        forced: end.forced,
        forcedReason: end.reason,
        maxCycles: task.maxCycles,
        followups: deps.config.defaults.followups,
        blockingSeverity: deps.config.defaults.blockingSeverity,
      });
      return derived.verdict === "MAX_CYCLES_REACHED" && !budgetLeft
        ? { verdict: "BUDGET_EXHAUSTED", reason: budgetReason(task.budget, state) }
        : derived;
    }
    case "budget":
      return { verdict: "BUDGET_EXHAUSTED", reason: budgetReason(task.budget, state) };
    case "interrupted":
      return {
        verdict: "CHANGES_REQUESTED",
        reason: `interrupted (${end.reason})${end.stageId ? ` during stage ${end.stageId}` : ""}; \`fixpoint resume ${task.id}\` continues from the last checkpoint`,
      };
    case "stopped":
      return {
        verdict: "CHANGES_REQUESTED",
        reason: `${end.reason}; \`fixpoint retry ${task.id}\` starts again from that stage`,
      };
    case "paused":
      return { verdict: "CHANGES_REQUESTED", reason: end.reason };
  }
}

function budgetReason(budget: { usd?: number; tokens?: number }, state: RunState): string {
  const parts = [];
  if (budget.usd !== undefined) parts.push(`$${budget.usd.toFixed(2)}`);
  if (budget.tokens !== undefined) parts.push(`${budget.tokens} tokens`);
  return `budget of ${parts.join(" / ")} used up (this run: $${state.costUsd.toFixed(2)}); raise it with \`fixpoint add --budget-usd\` or in fixpoint.kdl`;
}
