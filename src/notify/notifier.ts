import type { Notification, Notifier } from "../domain/notifier.js";
import type { ProcessRunner } from "../domain/process.js";
import { toError } from "../errors.js";
import { redactSecrets } from "../util/redact.js";

/**
 * The `notify` setting as a Notifier (domain/notifier.ts): a webhook when it is an http(s) URL,
 * otherwise a command. Neither ever throws; a failure comes back as `{ ok: false, error }`.
 *
 * - Webhook: one POST of `notificationJson(n)` with a timeout.
 * - Command: the user's own string from fixpoint.kdl, run as `sh -c <command>` through the
 *   process runner. Nothing from a task, agent or pull request is put into that string: the
 *   message goes to stdin and the facts to FIXPOINT_EVENT, FIXPOINT_TASK, FIXPOINT_VERDICT,
 *   FIXPOINT_PR and FIXPOINT_URL.
 * Both redact the message again, whatever the caller did.
 */
export interface NotifierDeps {
  runner: ProcessRunner;
  /** Where a command runs (the repository root). */
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** Default 10 s for a webhook, 60 s for a command. */
  timeoutMs?: number;
}

const WEBHOOK = /^https?:\/\//i;

export function isWebhook(target: string): boolean {
  return WEBHOOK.test(target.trim());
}

export function createNotifier(target: string, deps: NotifierDeps): Notifier {
  const t = target.trim();
  return isWebhook(t) ? webhookNotifier(t, deps) : commandNotifier(t, deps);
}

/** The webhook's body: stable snake_case keys (docs/configuration.md). */
export function notificationJson(n: Notification, env: NodeJS.ProcessEnv) {
  return {
    kind: n.kind,
    task_id: n.taskId,
    summary: redactSecrets(n.summary, env),
    verdict: n.verdict ?? null,
    url: n.url ?? null,
    pr: n.pr ?? null,
    details: n.details ? redactSecrets(n.details, env) : null,
  };
}

/** What a command reads on stdin: the summary, then the details. */
export function notificationText(n: Notification, env: NodeJS.ProcessEnv): string {
  const text = n.details ? `${n.summary}\n${n.details}` : n.summary;
  return redactSecrets(text.endsWith("\n") ? text : `${text}\n`, env);
}

function webhookNotifier(url: string, deps: NotifierDeps): Notifier {
  const send = deps.fetch ?? fetch;
  return {
    async notify(n) {
      try {
        const res = await send(url, {
          method: "POST",
          headers: { "content-type": "application/json", "user-agent": "fixpoint" },
          body: JSON.stringify(notificationJson(n, deps.env)),
          signal: AbortSignal.timeout(deps.timeoutMs ?? 10_000),
          redirect: "error",
        });
        // Drain the answer so the connection can close; its content is not ours to keep.
        await res.arrayBuffer().catch(() => undefined);
        return res.ok ? { ok: true } : { ok: false, error: `notify webhook answered HTTP ${res.status}` };
      } catch (e) {
        const err = toError(e);
        const why = err.name === "TimeoutError" ? "timed out" : err.message;
        return { ok: false, error: redactSecrets(`notify webhook failed: ${why}`, deps.env) };
      }
    },
  };
}

function commandNotifier(command: string, deps: NotifierDeps): Notifier {
  return {
    async notify(n) {
      const r = await deps.runner.run({
        command: "sh",
        args: ["-c", command],
        cwd: deps.cwd,
        env: {
          ...deps.env,
          FIXPOINT_EVENT: n.kind,
          FIXPOINT_TASK: n.taskId,
          FIXPOINT_VERDICT: n.verdict ?? "",
          FIXPOINT_PR: n.pr == null ? "" : String(n.pr),
          FIXPOINT_URL: n.url ?? "",
        },
        input: notificationText(n, deps.env),
        timeoutMs: deps.timeoutMs ?? 60_000,
      });
      if (r.exitCode === 0 && !r.timedOut && r.spawnError === undefined) return { ok: true };
      const how = r.timedOut ? "timed out" : `exit ${r.exitCode ?? r.signal ?? r.spawnError}`;
      return { ok: false, error: `notify command failed (${how})` };
    },
  };
}
