/**
 * What the tests of `Store.listTaskLines` share, SQLite's (migration 018) and PostgreSQL's
 * (task-line-page.ts): tasks as a hand edit or an older fixpoint may have left their rows, and the
 * check that a page the store vouches for is byte for byte statusLine's.
 */
import fc from "fast-check";
import { expect } from "vitest";
import { statusLines } from "../../src/cli/render/status.js";
import type { Store, TaskFilter } from "../../src/domain/store.js";
import { FINAL_VERDICTS, TASK_STATUSES, TASK_TYPES } from "../../src/domain/types.js";
import { secretValues } from "../../src/util/redact.js";
import { newTask } from "./samples.js";

/** A row of `tasks` as a hand edit or an older fixpoint may have left it. */
export interface RawTask {
  id: string;
  type: string;
  title: string;
  status: string;
  finalVerdict: string | null;
  reason: string | null;
  cycle: number;
  maxCycles: number;
  currentStage: string | null;
  parentId: string | null;
  costUsd: number;
}

/** A secret value of the printing process, in some texts: a page holding it is left to the CLI. */
export const SECRET = "s3cr3t-v4lue";

/** Texts around what a line cuts, pads and folds: mostly ordinary, some with every kind of whitespace and emoji. */
const text = (max: number) => {
  const parts = (wild: boolean) =>
    fc.array(
      fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom(..."abcdefghijklmnopqrstuvwxyz ABC-_:/.0123456789") },
        { weight: 1, arbitrary: fc.constantFrom("é", "ß", "日本", "—", "…", "·", "→", "✓", SECRET) },
        ...(wild
          ? [
              {
                weight: 1,
                arbitrary: fc.constantFrom(" ", "  ", "\t", "\n", "\u00a0", "\u2028", "\u3000", "\ufeff"),
              },
              { weight: 1, arbitrary: fc.constantFrom("🙂", "𝒳", "\u{10ffff}") },
            ]
          : []),
      ),
      { maxLength: max },
    );
  return fc
    .oneof({ weight: 4, arbitrary: parts(false) }, { weight: 1, arbitrary: parts(true) })
    .map((p) => p.join(""));
};
const odd = <T, U>(usual: fc.Arbitrary<T>, unusual: fc.Arbitrary<U>) =>
  fc.oneof({ weight: 8, arbitrary: usual }, { weight: 1, arbitrary: unusual });

export const rawTask: fc.Arbitrary<Omit<RawTask, "id">> = fc.record({
  type: odd(fc.constantFrom(...TASK_TYPES), fc.constantFrom("other", "")),
  title: text(40),
  status: odd(fc.constantFrom(...TASK_STATUSES), fc.constant("odd")),
  finalVerdict: fc.oneof(
    fc.constant(null),
    odd(fc.constantFrom(...FINAL_VERDICTS), fc.constantFrom("", "MAYBE")),
  ),
  reason: fc.oneof(fc.constant(null), text(90)),
  cycle: fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constant(1)),
  maxCycles: fc.integer({ min: 1, max: 12 }),
  currentStage: fc.oneof(
    fc.constant(null),
    fc.constant(""),
    odd(fc.constantFrom("review", "fix-2"), fc.constantFrom("review ", "sign off\t")),
    text(12),
  ),
  parentId: fc.oneof(
    fc.constant(null),
    fc.constant(""),
    odd(fc.constant("t-1"), fc.constantFrom("t-2 ", "t-3\t")),
  ),
  costUsd: fc.oneof(
    fc.constant(0),
    fc.double({ min: 0, max: 1e6, noNaN: true }),
    odd(fc.constantFrom(0.005, 0.125, 1.005, 2.675), fc.constantFrom(1e15, 3e20)),
  ),
});

/** Ids as fixpoint makes them, and explicit ones of other lengths and alphabets. */
export const idOf = (i: number, pick: number): string =>
  (pick < 8 ? "t-" : ["gh-owner-repo-", "é-", "🙂-", "x"][pick % 4]) +
  String(i + 1).padStart(1 + (pick % 3), "0");

/**
 * Lists the table page by page through listTaskLines and checks every vouched page against
 * statusLine over listTaskSummaries' page. Returns how many pages were vouched for.
 */
export async function checkPages(
  store: Store,
  filter: TaskFilter,
  limit: number,
  startWidth: number,
  secrets: readonly string[] = secretValues(process.env),
): Promise<number> {
  let width = startWidth;
  let vouched = 0;
  let after: number | undefined;
  for (;;) {
    const page = await store.listTaskLines?.({
      ...filter,
      limit,
      ...(after === undefined ? {} : { afterSeq: after }),
      idWidth: width,
      secrets,
    });
    if (!page) throw new Error("the store lists lines");
    const tasks = await store.listTaskSummaries({
      ...filter,
      limit,
      ...(after === undefined ? {} : { afterSeq: after }),
    });
    expect(page.count).toBe(tasks.length);
    const holdsSecret = tasks.some((t) =>
      [t.title, t.reason ?? "", t.currentStage ?? ""].some((x) => secrets.some((v) => x.includes(v))),
    );
    if (holdsSecret) expect(page.lines).toBeNull();
    let expectedWidth = width;
    for (const t of tasks) expectedWidth = Math.max(expectedWidth, t.id.length);
    if (page.lines !== null && tasks.length > 0) {
      expect(Buffer.from(page.lines).toString("utf8")).toBe(statusLines(tasks, expectedWidth));
      expect(page.idWidth).toBe(expectedWidth);
      vouched++;
    }
    width = expectedWidth;
    if (page.lastSeq === null || page.count < limit) return vouched;
    expect(page.lastSeq).toBe(tasks.at(-1)?.seq);
    after = page.lastSeq;
  }
}

/**
 * 23 tasks made through the store as fixpoint makes them, of every status but cancelled, with
 * titles in several alphabets and lengths; `reason` is a failed task's. Listed in pages of 4, their
 * ids t-1 … t-23 grow from 3 to 4 characters on the third page. Returns how many pages that is.
 */
export async function ordinaryTasks(store: Store, reason: string): Promise<number> {
  const titles = [
    "Fix the parser",
    "Café menu — prices in €",
    "日本語の題名",
    "A title far longer than the column holds",
  ];
  for (let i = 0; i < 23; i++) {
    const t = await store.createTask(
      newTask({ title: titles[i % titles.length] as string }),
      1_700_000_000_000 + i,
    );
    const status = (["queued", "running", "completed", "needs_human", "failed"] as const)[i % 5];
    await store.updateTask(
      t.id,
      {
        status,
        cycle: i % 3,
        currentStage: i % 2 === 0 ? "review" : null,
        ...(status === "completed" ? { finalVerdict: i % 4 === 0 ? "APPROVED" : "NO_PROGRESS" } : {}),
        ...(status === "failed" ? { reason } : {}),
      },
      1_700_000_000_100 + i,
    );
  }
  return Math.ceil(23 / 4);
}

/**
 * An empty store given a task whose title holds a secret value of the printing process, then one
 * whose title may hold a token: neither page is vouched for, and the listing still counts both.
 */
export async function expectSecretsAndTokensLeftToTheCli(store: Store): Promise<void> {
  const secret = "s3cr3t-value-0123456789";
  await store.createTask(newTask({ title: `A long title that ends with ${secret}` }), 1_700_000_000_000);
  const page = await store.listTaskLines?.({ limit: 10, idWidth: 0, secrets: [secret] });
  expect(page?.count).toBe(1);
  expect(page?.lines).toBeNull();
  const plain = await store.listTaskLines?.({ limit: 10, idWidth: 0, secrets: ["not-in-any-text"] });
  expect(plain?.lines).not.toBeNull();
  await store.createTask(newTask({ title: "use sk-abcdefghijklmnopqrstuvwxyz012345" }), 1_700_000_000_001);
  const hinted = await store.listTaskLines?.({ limit: 10, idWidth: 0, secrets: [] });
  expect(hinted?.count).toBe(2);
  expect(hinted?.lines).toBeNull();
  expect(hinted?.lastSeq).toBe(2);
}

/**
 * An empty store given a failed task with a URL in its title and reason, and one whose title says
 * `Bearer`: texts a token hint flags (`://`, `Bearer`) that hold no token shape, whose page is
 * served (`hinted` sees the store's hints before that). Then a task whose title holds a password
 * in a URL: that page is the CLI's.
 */
export async function expectUrlsServedAndTokensNot(
  store: Store,
  hinted: () => Promise<void> = async () => {},
): Promise<void> {
  const t = await store.createTask(
    newTask({ title: "Crash from https://github.com/o/r/issues/1" }),
    1_700_000_000_000,
  );
  await store.updateTask(
    t.id,
    { status: "failed", reason: "gate failed: see https://ci.example/run/7" },
    1_700_000_000_001,
  );
  await store.createTask(newTask({ title: "Bearer of bad news" }), 1_700_000_000_002);
  await hinted();
  expect(await checkPages(store, {}, 10, 0)).toBe(1);
  await store.createTask(
    newTask({ title: "Clone https://me:hunter2hunter2@git.example/r" }),
    1_700_000_000_003,
  );
  const page = await store.listTaskLines?.({ limit: 10, idWidth: 0, secrets: [] });
  expect(page?.count).toBe(3);
  expect(page?.lines).toBeNull();
}
