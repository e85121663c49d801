import type { ProcessRunner } from "../../domain/process.js";
import type { Store } from "../../domain/store.js";
import type { Finding, TaskSummary } from "../../domain/types.js";
import { createNotifier } from "../../notify/notifier.js";
import { reworkTaskPrefix } from "./rework-plan.js";

export interface EscalateInput {
  store: Store;
  runner: ProcessRunner;
  pr: number;
  /** The task a human must look at (the original task, else the latest rework task). */
  task: TaskSummary | null;
  reason: string;
  /** Configured `notify`: a shell command string from the user's own configuration. */
  notify?: string;
  /** Where the notify command runs. */
  cwd: string;
  env: NodeJS.ProcessEnv;
  now: number;
}

export interface EscalateResult {
  /** True when this call ran the notify command (at most once per PR, whatever happens). */
  notified: boolean;
  notifyError?: string;
}

export function notifyMarkerKey(pr: number): string {
  return `gh-notify:${pr}`;
}

/**
 * Past `max-rework-cycles` (seed 004): the task is marked `needs_human` with the reason, an
 * event says so, and the configured `notify` fires once, through the one notify adapter
 * (src/notify/notifier.ts): a command gets the summary of the open findings on stdin and the PR
 * and task ids in FIXPOINT_PR / FIXPOINT_TASK (nothing from GitHub is put into the command); a
 * webhook URL gets them as JSON.
 */
export async function escalateRework(input: EscalateInput): Promise<EscalateResult> {
  const { store, task } = input;
  if (task) {
    await store.updateTask(task.id, { status: "needs_human", reason: input.reason }, input.now);
    await store.appendEvents(
      [
        {
          taskId: task.id,
          runId: null,
          type: "github.rework_limit",
          data: { pr: input.pr, reason: input.reason },
        },
      ],
      input.now,
    );
  }
  if (!input.notify) return { notified: false };
  // Claimed before running: a crash mid-notify means no second notification rather than two.
  if (
    !(await store.setMarkerOnce(
      notifyMarkerKey(input.pr),
      { task: task?.id ?? null, at: input.now },
      input.now,
    ))
  ) {
    return { notified: false };
  }
  const findings = task ? await openFindingsOf(store, input.pr, task.id) : [];
  const [headline, ...rest] = notifySummary(input.pr, task?.id ?? null, input.reason, findings).split("\n");
  const notifier = createNotifier(input.notify, { runner: input.runner, cwd: input.cwd, env: input.env });
  const r = await notifier.notify({
    kind: "pr.max_cycles",
    taskId: task?.id ?? "",
    summary: headline ?? "",
    details: rest.join("\n"),
    pr: input.pr,
    verdict: null,
  });
  return r.ok ? { notified: true } : { notified: true, notifyError: r.error };
}

const STILL_OPEN: ReadonlySet<Finding["status"]> = new Set(["open", "fixed", "deferred", "blocked"]);

/** The open findings of the task and of the PR's rework tasks, newest cycle last. */
async function openFindingsOf(store: Store, pr: number, taskId: string): Promise<Finding[]> {
  const ids = new Set([taskId]);
  for (const t of await store.listTaskSummaries({ idPrefix: reworkTaskPrefix(pr) })) ids.add(t.id);
  const out: Finding[] = [];
  for (const id of ids) {
    // One push per finding: spreading a task's findings into push's arguments overflows the
    // stack past about 120,000 of them.
    for (const f of await store.listFindings(id)) if (STILL_OPEN.has(f.status)) out.push(f);
  }
  return out;
}

export function notifySummary(
  pr: number,
  taskId: string | null,
  reason: string,
  findings: Finding[],
): string {
  const lines = [
    `fixpoint: pull request #${pr} needs a human${taskId ? ` (task ${taskId})` : ""}.`,
    reason,
    "",
  ];
  if (findings.length === 0) lines.push("No open findings.");
  else {
    lines.push(`Open findings (${findings.length}):`);
    for (const f of findings) {
      const where = f.file ? ` ${f.file}${f.lineStart !== null ? `:${f.lineStart}` : ""}` : "";
      lines.push(
        `- ${f.taskId} ${f.id} [${f.severity}] ${f.status}${where}: ${f.title.replace(/\s+/g, " ")}`,
      );
    }
  }
  return `${lines.join("\n")}\n`;
}
