import type { Notification, Notifier } from "../domain/notifier.js";
import type { FinalVerdict } from "../domain/types.js";
import type { EngineEvent, EngineListener } from "../engine/events.js";
import { errorMessage } from "../errors.js";
import { redactSecrets } from "../util/redact.js";
import { taskReason } from "./attention.js";
import type { AppContext } from "./context.js";

/**
 * What to tell a person about an engine event, or null: a task that reached a final verdict
 * (`task.finished`) or that needs them (`task.needs_human`: a limit, an escalation, a `human`
 * stage). Cancelled tasks are not news to whoever cancelled them.
 */
export function notificationFor(e: EngineEvent): Notification | null {
  if (e.type === "task.paused") {
    const why = taskReason({
      status: "needs_human",
      finalVerdict: null,
      currentStage: e.stageId,
      reason: e.reason,
    });
    return {
      kind: "task.needs_human",
      taskId: e.taskId,
      summary: `${e.taskId} needs you: ${why}`,
      verdict: null,
    };
  }
  if (e.type !== "task.finished" || e.status === "cancelled") return null;
  const verdict = e.verdict as FinalVerdict | null;
  if (e.status === "completed") {
    const branch = e.branch ? ` on ${e.branch}` : "";
    return {
      kind: "task.finished",
      taskId: e.taskId,
      summary: `${e.taskId} ${verdict ?? "finished"}${branch}`,
      verdict,
    };
  }
  const why = taskReason({
    status: "needs_human",
    finalVerdict: verdict,
    currentStage: null,
    reason: e.reason,
  });
  return { kind: "task.needs_human", taskId: e.taskId, summary: `${e.taskId} needs you: ${why}`, verdict };
}

/**
 * Wraps an engine listener so that `notifier` is told of every notification-worthy event. Sending
 * runs in the background (a listener must not block or throw); `settle()` waits for every send.
 * A failed send is recorded as a `notify.failed` event on the task and never fails it.
 */
export function notifyingListener(
  inner: EngineListener,
  notifier: Notifier,
  ctx: Pick<AppContext, "store" | "clock" | "env">,
): { listener: EngineListener; settle: () => Promise<void> } {
  const pending = new Set<Promise<void>>();
  const send = async (n: Notification): Promise<void> => {
    const summary = redactSecrets(n.summary, ctx.env);
    let error: string | null;
    try {
      const r = await notifier.notify({ ...n, summary });
      error = r.ok ? null : r.error;
    } catch (e) {
      // The port says notify never throws; a custom one might anyway.
      error = errorMessage(e);
    }
    if (error === null) return;
    await ctx.store
      .appendEvents(
        [
          {
            taskId: n.taskId,
            runId: null,
            type: "notify.failed",
            data: { kind: n.kind, error: redactSecrets(error, ctx.env) },
          },
        ],
        ctx.clock.now(),
      )
      .catch(() => undefined);
  };
  const listener: EngineListener = (e) => {
    inner(e);
    const n = notificationFor(e);
    if (n === null) return;
    const p = send(n).finally(() => pending.delete(p));
    pending.add(p);
  };
  return {
    listener,
    settle: async () => {
      while (pending.size > 0) await Promise.all([...pending]);
    },
  };
}
