import type { ProcessRunner } from "../../domain/process.js";
import type { Store } from "../../domain/store.js";
import type { Finding, TaskSummary } from "../../domain/types.js";
import { redactSecrets } from "../../util/redact.js";

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
 * event says so, and the configured notify command runs once. The command is the user's string,
 * run as `sh -c <notify>`; nothing from GitHub is put into it — the summary of the open findings
 * goes to its stdin and the PR and task ids to FIXPOINT_PR / FIXPOINT_TASK.
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
  const r = await input.runner.run({
    command: "sh",
    args: ["-c", input.notify],
    cwd: input.cwd,
    env: { ...input.env, FIXPOINT_PR: String(input.pr), FIXPOINT_TASK: task?.id ?? "" },
    // Redacted like every other sink: the summary quotes findings and the reason.
    input: redactSecrets(notifySummary(input.pr, task?.id ?? null, input.reason, findings), input.env),
    timeoutMs: 60_000,
  });
  const ok = r.exitCode === 0 && !r.timedOut && r.spawnError === undefined;
  return ok
    ? { notified: true }
    : {
        notified: true,
        notifyError: `notify command failed (exit ${r.exitCode ?? r.signal ?? r.spawnError})`,
      };
}

/** The open findings of the task and of the PR's rework tasks, newest cycle last. */
async function openFindingsOf(store: Store, pr: number, taskId: string): Promise<Finding[]> {
  const ids = new Set([taskId]);
  for (const t of await store.listTaskSummaries()) if (t.id.startsWith(`pr-${pr}-cycle-`)) ids.add(t.id);
  const out: Finding[] = [];
  for (const id of ids)
    out.push(
      ...(await store.listFindings(id)).filter((f) =>
        ["open", "fixed", "deferred", "blocked"].includes(f.status),
      ),
    );
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
