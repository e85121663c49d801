import type { TaskFilter, TaskJsonPage, TaskLinePage, TaskTotals } from "../domain/store.js";
import { TASK_STATUSES, type TaskStatus, type TaskSummary } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import { didYouMeanSuffix } from "../util/did-you-mean.js";
import { NEEDS_ME_STATUSES } from "./attention.js";
import type { AppContext } from "./context.js";
import { parseSince } from "./since.js";

/** What `status` lists by default: every task except the cancelled ones. */
const LISTED: readonly TaskStatus[] = ["queued", "running", "completed", "needs_human", "failed"];

/** `fixpoint status`'s filters as typed: each optional, all of them must match. */
export interface StatusQuery {
  /** Include cancelled tasks (when no `statuses` are given). */
  all?: boolean;
  /** Task statuses, e.g. `["failed", "needs_human"]` (validated). */
  statuses?: readonly string[];
  /** Only tasks changed since: a duration back from now (`12h`) or a date (see since.ts). */
  since?: string;
  /** Only tasks that wait for a person (attention.ts). */
  needsMe?: boolean;
}

/** Validates a status query into a store filter; unknown statuses and times are usage errors. */
export function statusFilter(query: StatusQuery, now: number): TaskFilter {
  const named = query.statuses !== undefined && query.statuses.length > 0;
  let statuses: readonly TaskStatus[] = query.all ? TASK_STATUSES : LISTED;
  if (named) statuses = (query.statuses ?? []).map(parseStatus);
  if (query.needsMe) statuses = statuses.filter((s) => NEEDS_ME_STATUSES.includes(s));
  // Without named statuses the listing is "all but cancelled" (or all): said as an exclusion,
  // a page tests one value per task instead of looking each task's status up in a list
  // (40 ms of `status --json` at 100,000 tasks).
  const filter: TaskFilter =
    named || query.needsMe
      ? { statuses: [...new Set(statuses)] }
      : query.all
        ? {}
        : { excludeStatuses: TASK_STATUSES.filter((s) => !LISTED.includes(s)) };
  if (query.since !== undefined) {
    const since = parseSince(query.since, now);
    if (since !== undefined) filter.updatedSince = since;
  }
  return filter;
}

function parseStatus(value: string): TaskStatus {
  const v = value.trim().toLowerCase().replace(/-/g, "_");
  if ((TASK_STATUSES as readonly string[]).includes(v)) return v as TaskStatus;
  throw new FixpointError(
    "usage",
    `unknown status \`${value}\`${didYouMeanSuffix(v, TASK_STATUSES)}; the statuses are ${TASK_STATUSES.join(", ")}`,
  );
}

/** One summary per task matching the query, oldest first. */
export async function listTasks(
  ctx: Pick<AppContext, "store" | "clock">,
  query: StatusQuery = {},
): Promise<TaskSummary[]> {
  return ctx.store.listTaskSummaries(statusFilter(query, ctx.clock.now()));
}

/**
 * One page of a listing: up to `limit` summaries after the task numbered `afterSeq`, oldest first.
 * Callers that stream (`status`, `status --json`) walk the pages so memory and time to first
 * byte do not grow with the number of tasks.
 */
export async function listTasksPage(
  ctx: Pick<AppContext, "store">,
  filter: TaskFilter,
  page: { limit: number; afterSeq?: number | undefined },
): Promise<TaskSummary[]> {
  return ctx.store.listTaskSummaries({
    ...filter,
    limit: page.limit,
    ...(page.afterSeq === undefined ? {} : { afterSeq: page.afterSeq }),
  });
}

/** The same page as JSON text written by the store (`status --json` at 100,000 tasks). */
export async function listTaskJsonPage(
  ctx: Pick<AppContext, "store">,
  filter: TaskFilter,
  page: { limit: number; afterSeq?: number | undefined },
): Promise<TaskJsonPage> {
  return ctx.store.listTaskJson({
    ...filter,
    limit: page.limit,
    ...(page.afterSeq === undefined ? {} : { afterSeq: page.afterSeq }),
  });
}

/**
 * The same page as `status` table lines the store recorded (`Store.listTaskLines`); null when the
 * store records none, and `lines` null when it cannot vouch for this page: format the summaries.
 */
export async function listTaskLinePage(
  ctx: Pick<AppContext, "store">,
  filter: TaskFilter,
  page: { limit: number; afterSeq?: number | undefined; idWidth: number; secrets: readonly string[] },
): Promise<TaskLinePage | null> {
  if (!ctx.store.listTaskLines) return null;
  return ctx.store.listTaskLines({
    ...filter,
    limit: page.limit,
    ...(page.afterSeq === undefined ? {} : { afterSeq: page.afterSeq }),
    idWidth: page.idWidth,
    secrets: page.secrets,
  });
}

/**
 * Counts per status and the spend of the tasks a filter matches: one walk of a narrow index
 * (SQLite's migration 019), where seven counts and a sum took 46 ms at 100,000 tasks.
 */
export async function statusTotals(ctx: Pick<AppContext, "store">, filter: TaskFilter): Promise<TaskTotals> {
  return ctx.store.taskTotals(filter);
}
