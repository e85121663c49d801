import type { Context } from "hono";
import { streamSSE } from "hono/streaming";
import type { TaskEvent } from "../domain/types.js";
import { errorMessage } from "../errors.js";
import { redactSecrets } from "../util/redact.js";
import type { DashboardApi } from "./api.js";
import { eventData } from "./pages/task.js";

export interface LiveOptions {
  /** How often each stream polls the store for new events. */
  pollMs?: number;
  /** A comment line this often keeps proxies and the browser from timing the stream out. */
  keepAliveMs?: number;
}

const BATCH = 200;

/**
 * GET /events: server-sent events for every task event after a cursor — `Last-Event-ID` (the
 * browser sends it when it reconnects, so a dropped connection catches up), else `?after=`
 * (the newest event when the page was rendered), else the newest event now. Each stream polls
 * `events(cursor)`, an indexed range read, so an idle dashboard costs one tiny query per poll.
 * A store that cannot be read sends `store-error` (the page shows a banner) and the stream keeps
 * retrying; `store-ok` follows when it can be read again.
 */
export function liveEvents(api: DashboardApi, opts: LiveOptions = {}) {
  const pollMs = opts.pollMs ?? 500;
  const keepAliveMs = opts.keepAliveMs ?? 15_000;
  return async (c: Context) => {
    const start = cursorFrom(c.req.header("last-event-id")) ?? cursorFrom(c.req.query("after"));
    return streamSSE(c, async (stream) => {
      let cursor = start ?? (await api.lastEventId().catch(() => 0));
      let lastWrite = Date.now();
      let failing = false;
      let closed = false;
      stream.onAbort(() => {
        closed = true;
      });
      await stream.writeSSE({ event: "hello", data: JSON.stringify({ after: cursor }), retry: 1000 });
      while (!closed) {
        try {
          const events = await api.events(cursor, BATCH);
          if (failing) await stream.writeSSE({ event: "store-ok", data: "{}" });
          failing = false;
          for (const e of events) {
            await stream.writeSSE({ id: String(e.id), event: "task", data: JSON.stringify(wire(e)) });
            cursor = e.id;
          }
          if (events.length > 0) lastWrite = Date.now();
          if (events.length === BATCH) continue;
        } catch (e) {
          if (!failing)
            await stream.writeSSE({
              event: "store-error",
              data: JSON.stringify({ message: errorMessage(e) }),
            });
          failing = true;
        }
        if (Date.now() - lastWrite >= keepAliveMs) {
          await stream.write(": keep-alive\n\n");
          lastWrite = Date.now();
        }
        await stream.sleep(pollMs);
      }
    });
  };
}

function cursorFrom(v: string | undefined): number | null {
  if (v === undefined || !/^\d{1,15}$/.test(v)) return null;
  return Number(v);
}

/** What the browser gets for an event: ids, type, time and a one-line summary (redacted). */
export function wire(e: TaskEvent): {
  id: number;
  taskId: string;
  type: string;
  ts: number;
  summary: string;
} {
  return {
    id: e.id,
    taskId: e.taskId,
    type: e.type,
    ts: e.ts,
    summary: redactSecrets(eventData(e)).slice(0, 300),
  };
}
