import type { GithubClient } from "../../domain/github.js";
import type { Store } from "../../domain/store.js";
import type { Finding, Severity, Task } from "../../domain/types.js";
import { isActiveFinding } from "../../domain/types.js";
import { isBlocking } from "../../findings/severity.js";
import { fileTechDebtIssues, type TechDebtResult } from "../tech-debt.js";

export interface FileIssuesInput {
  client: Pick<GithubClient, "listIssuesWithLabel" | "createIssue" | "getPull" | "findPullByHead">;
  store: Store;
  task: Task;
  findings: Finding[];
  label: string;
  /** `defaults.followups`: non-blocking findings still in play are filed too. */
  followups: boolean;
  blockingSeverity: Severity;
  now: number;
}

/** Non-blocking findings still open, fixed-but-unverified or deferred: the follow-ups. */
export function followupFindings(findings: Finding[], blockingSeverity: Severity): Finding[] {
  return findings.filter((f) => isActiveFinding(f.status) && !isBlocking(f.severity, blockingSeverity));
}

/**
 * Files the task's unresolved findings as tech-debt issues (SPEC §8.7, seed 003): blocked and
 * deferred ones, plus follow-ups when configured, each with its attempt history and a link to
 * the task's PR. At most once per finding: the fingerprint marker in filed issues is looked up
 * first (fileTechDebtIssues), so reruns and crashes never duplicate. Records an event.
 */
export async function fileTaskIssues(input: FileIssuesInput): Promise<TechDebtResult> {
  const { client, task } = input;
  const pull =
    task.meta.prNumber !== undefined
      ? await client.getPull(task.meta.prNumber)
      : task.branch
        ? await client.findPullByHead(task.branch)
        : null;
  const result = await fileTechDebtIssues(client, input.findings, {
    label: input.label,
    taskId: task.id,
    ...(pull ? { prUrl: pull.url } : {}),
    ...(input.followups ? { followups: followupFindings(input.findings, input.blockingSeverity) } : {}),
  });
  await input.store.appendEvents(
    [
      {
        taskId: task.id,
        runId: null,
        type: "github.issues_filed",
        data: {
          created: result.created.map((c) => ({ ...c })),
          existing: result.existing.map((c) => ({ ...c })),
          failed: result.failed.map((c) => ({ ...c })),
        },
      },
    ],
    input.now,
  );
  return result;
}

/** `2 issues filed (#7, #8), 1 already filed, 1 failed: …` */
export function issuesSummary(r: TechDebtResult): string {
  const parts = [
    `${r.created.length} issue${r.created.length === 1 ? "" : "s"} filed${r.created.length ? ` (${r.created.map((c) => `#${c.number}`).join(", ")})` : ""}`,
  ];
  if (r.existing.length) parts.push(`${r.existing.length} already filed`);
  if (r.failed.length)
    parts.push(`${r.failed.length} failed: ${r.failed.map((f) => `${f.findingId} ${f.reason}`).join("; ")}`);
  return parts.join(", ");
}
