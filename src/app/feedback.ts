import type { StoreOps } from "../domain/store.js";
import type { Severity, StoredReviewIssue, Task } from "../domain/types.js";
import { Registry } from "../findings/registry.js";
import { redactSecrets } from "../util/redact.js";

/**
 * A person's feedback on `resume`: one open finding at the blocking severity (source `human`), so
 * the fix loop must answer it like any reviewer's finding and the reviewers verify it. Written
 * through `tx` with its event; returns it as a follow-up issue for a resumed fix loop.
 */
export async function recordFeedback(
  tx: StoreOps,
  task: Task,
  opts: {
    text: string;
    by: string;
    cycle: number;
    blockingSeverity: Severity;
    now: number;
    env: NodeJS.ProcessEnv;
  },
): Promise<StoredReviewIssue> {
  const registry = Registry.load(task.id, await tx.listFindings(task.id), {
    blockingSeverity: opts.blockingSeverity,
    now: () => opts.now,
  });
  const body = redactSecrets(opts.text.trim(), opts.env);
  const firstLine = body.split("\n")[0] ?? "";
  const title = `Feedback from ${opts.by}: ${firstLine.length > 80 ? `${firstLine.slice(0, 79)}…` : firstLine}`;
  const added = registry.addFindings(
    [
      {
        severity: opts.blockingSeverity,
        category: "feedback",
        title,
        body,
        file: null,
        lineStart: null,
        lineEnd: null,
        suggestedFix: null,
      },
    ],
    { source: "human", cycle: opts.cycle, author: opts.by },
  );
  const changes = registry.drainChanges();
  await tx.saveFindings(task.id, changes.findings, changes.events, opts.now);
  const id = added.added[0] ?? added.merged[0] ?? added.reopened[0] ?? "";
  const finding = registry.get(id);
  return {
    id,
    file: "",
    lineStart: 0,
    lineEnd: 0,
    severity: finding?.severity ?? opts.blockingSeverity,
    title: finding?.title ?? title,
    body: finding?.body ?? body,
    reviewer: opts.by,
  };
}
