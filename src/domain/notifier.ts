/**
 * Telling a person that something needs them or has finished. Implementations: the configured
 * `notify` command or webhook (adapters), or nothing. `notify` MUST NOT throw: a failed
 * notification is returned as data so the caller can record it and go on.
 */
export interface Notifier {
  notify(message: Notification): Promise<{ ok: true } | { ok: false; error: string }>;
}

export interface Notification {
  /** What happened, e.g. `task.finished`, `task.needs_human`, `pr.max_cycles`. */
  kind: string;
  taskId: string;
  /** One line a person reads; redacted by the caller. */
  summary: string;
  verdict?: string | null;
  url?: string | null;
  /** The pull request it is about, for PR loops. */
  pr?: number | null;
  /** Longer text after the summary (the open findings, say); redacted by the caller. */
  details?: string | null;
}
