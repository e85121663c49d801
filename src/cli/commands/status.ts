import type { Command } from "commander";
import type { AppContext } from "../../app/context.js";
import { type TaskHolder, taskHolders } from "../../app/holders.js";
import {
  listTaskJsonPage,
  listTaskLinePage,
  listTasksPage,
  type StatusQuery,
  statusFilter,
  statusTotals,
} from "../../app/status.js";
import type { TaskFilter, TaskTotals } from "../../domain/store.js";
import type { TaskSummary } from "../../domain/types.js";
import { secretValues } from "../../util/redact.js";
import { withContext } from "../context.js";
import { type Io, pageWriter, printJson } from "../io.js";
import { STATUS_PAGE, statusJsonPage, taskJson, writeTaskJsonStream } from "../render/json.js";
import { NO_MATCH, NO_TASKS, statusLines, totalsLine } from "../render/status.js";

interface StatusOptions {
  json?: boolean;
  all?: boolean;
  status?: string[];
  since?: string;
  needsMe?: boolean;
}

const commaList = (value: string, previous: string[] = []): string[] => [
  ...previous,
  ...value
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== ""),
];

export function registerStatus(program: Command, io: Io): void {
  program
    .command("status")
    .description(
      "one line per task: id, type, title, status, final verdict, cycles, why it needs you; then totals",
    )
    .option("--json", "print JSON: an array of task objects (docs/cli.md)")
    .option("--all", "include cancelled tasks")
    .option("--status <statuses>", "only these statuses, comma-separated (queued,running,…)", commaList)
    .option("--since <when>", "only tasks changed since a duration ago (12h, 7d) or a date (2026-01-31)")
    .option("--needs-me", "only tasks waiting for a person (escalated, at a human stage, a limit reached)")
    .action(async (opts: StatusOptions) => {
      await withContext(io, async (ctx) => {
        const query: StatusQuery = {
          all: Boolean(opts.all),
          needsMe: Boolean(opts.needsMe),
          ...(opts.status ? { statuses: opts.status } : {}),
          ...(opts.since !== undefined ? { since: opts.since } : {}),
        };
        const filter = statusFilter(query, ctx.clock.now());
        const page = (afterSeq: number | undefined) =>
          listTasksPage(ctx, filter, { limit: STATUS_PAGE, afterSeq });
        if (opts.json && !io.isTTY) {
          const limit = statusJsonPage(ctx.store);
          return writeTaskJsonStream(
            pageWriter(io),
            (afterSeq) => listTaskJsonPage(ctx, filter, { limit, afterSeq }),
            limit,
          );
        }
        if (opts.json) return printJson(io, (await allPages(page)).map(taskJson));
        await printTable(io, ctx, filter, filtered(opts));
      });
    });
}

/**
 * The table, its totals and who holds the running tasks. The totals and the holders are asked for
 * once the first page is in, on a connection of their own where the store has several
 * (PostgreSQL: 100-150 ms of the server's at 100,000 tasks), so they are answered while the table
 * is written; they are printed after it.
 */
async function printTable(io: Io, ctx: AppContext, filter: TaskFilter, isFiltered: boolean): Promise<void> {
  const secrets = secretValues(io.env);
  // Pages of lines are as large as the store's pages of JSON (statusJsonPage).
  const linePage = statusJsonPage(ctx.store);
  let extras: Promise<[TaskTotals, TaskHolder[]]> | undefined;
  const tablePage: TablePage = async (afterSeq, width) => {
    const recorded = await listTaskLinePage(ctx, filter, {
      limit: linePage,
      afterSeq,
      idWidth: width,
      secrets,
    });
    extras ??= started(
      (async (): Promise<[TaskTotals, TaskHolder[]]> => [
        await statusTotals(ctx, filter),
        await taskHolders(ctx.store),
      ])(),
    );
    if (recorded?.lines) return { ...recorded, text: recorded.lines, tokenFree: true, limit: linePage };
    const limit = recorded ? linePage : STATUS_PAGE;
    const tasks = await listTasksPage(ctx, filter, { limit, afterSeq });
    let idWidth = width;
    for (const t of tasks) idWidth = Math.max(idWidth, t.id.length);
    const last = tasks.at(-1);
    return {
      text: tasks.length > 0 ? statusLines(tasks, idWidth) : "",
      count: tasks.length,
      lastSeq: last ? last.seq : null,
      idWidth,
      tokenFree: false,
      limit,
    };
  };
  const shown = await writeTable(io, tablePage, isFiltered);
  const [totals, holders] = await (extras ??
    Promise.all([statusTotals(ctx, filter), taskHolders(ctx.store)]));
  if (shown > 0) io.out(`\n${totalsLine(totals)}`);
  io.out(holdersSection(holders));
}

/** `p`, awaited later: until then its failure is not reported as unhandled (an await still throws it). */
function started<T>(p: Promise<T>): Promise<T> {
  p.catch(() => undefined);
  return p;
}

const filtered = (opts: StatusOptions): boolean =>
  Boolean(opts.needsMe) || opts.status !== undefined || opts.since !== undefined;

async function allPages(page: (after: number | undefined) => Promise<TaskSummary[]>): Promise<TaskSummary[]> {
  const out: TaskSummary[] = [];
  for (let after: number | undefined; ; ) {
    const p = await page(after);
    out.push(...p);
    const last = p.at(-1);
    if (!last || p.length < STATUS_PAGE) return out;
    after = last.seq;
  }
}

/** One page of the table: its text, and where the listing goes on (TaskLinePage's fields). */
type TablePage = (
  afterSeq: number | undefined,
  idWidth: number,
) => Promise<{
  text: string | Uint8Array;
  count: number;
  lastSeq: number | null;
  idWidth: number;
  tokenFree: boolean;
  /** The page's size: a shorter page is the last. */
  limit: number;
}>;

/**
 * The table, written a page at a time so 100,000 tasks start printing at once and never sit in
 * memory together, each page written while the next is read (as `status --json`). Lines come as
 * the store recorded them when it can vouch for them (`Store.listTaskLines`), else from
 * statusLine. The id column widens when a later page has longer ids. Returns the lines written.
 */
async function writeTable(io: Io, page: TablePage, isFiltered: boolean): Promise<number> {
  const write = pageWriter(io);
  let writing: Promise<void> | void | undefined;
  let width = 0;
  let shown = 0;
  for (let after: number | undefined; ; ) {
    const p = await page(after, width);
    await writing;
    if (p.count > 0) writing = write([p.text], p.tokenFree);
    width = p.idWidth;
    shown += p.count;
    if (p.lastSeq === null || p.count < p.limit) break;
    after = p.lastSeq;
  }
  await writing;
  if (shown === 0) io.out(isFiltered ? NO_MATCH : NO_TASKS);
  return shown;
}

/** Which host and worker holds each running task, and when its lease ends (UTC, the store's clock). */
function holdersSection(holders: Awaited<ReturnType<typeof taskHolders>>): string {
  if (holders.length === 0) return "";
  const lines = holders.map((h) => {
    const until =
      h.leaseExpiresAt === null ? "no lease" : `lease until ${new Date(h.leaseExpiresAt).toISOString()}`;
    return `  ${h.taskId}  on ${h.host}  worker ${h.workerId}  ${until}\n`;
  });
  return `\nheld by:\n${lines.join("")}`;
}
