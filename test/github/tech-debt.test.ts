import { afterEach, beforeEach, expect, test } from "vitest";
import type { Finding } from "../../src/domain/types.js";
import { findingMarker } from "../../src/github/render.js";
import { fileTechDebtIssues } from "../../src/github/tech-debt.js";
import { type FakeGithub, startFakeGithub } from "../fakes/github-server/index.js";
import { clientFor, fakeClock } from "./helpers.js";

let gh: FakeGithub;
beforeEach(async () => {
  gh = await startFakeGithub();
});
afterEach(async () => {
  await gh.close();
});

function finding(id: string, over: Partial<Finding> = {}): Finding {
  return {
    taskId: "t-9",
    id,
    fingerprint: `fp-${id}`,
    severity: "P1",
    category: "correctness",
    title: `Problem ${id}`,
    body: `Details of ${id}`,
    file: "src/x.ts",
    lineStart: 3,
    lineEnd: 4,
    suggestedFix: null,
    sources: [],
    status: "open",
    firstCycle: 0,
    lastCycle: 2,
    timesReopened: 0,
    attempts: [],
    note: null,
    createdAt: 0,
    updatedAt: 0,
    ...over,
  };
}

const history = [
  {
    cycle: 1,
    status: "deferred" as const,
    justification: "needs the new schema first",
    commitSha: null,
    at: 1,
  },
  {
    cycle: 2,
    status: "blocked" as const,
    justification: "external dependency: vendor API",
    commitSha: "abc123def4567",
    at: 2,
  },
];

const findings = [
  finding("F-1", { status: "blocked", attempts: history }),
  finding("F-2", { status: "deferred" }),
  finding("F-3", { status: "resolved" }),
  finding("F-4", { status: "open" }),
];
const opts = { label: "tech-debt", taskId: "t-9", prUrl: "https://github.example/acme/shop/pull/1" };

test("blocked and deferred findings are filed once each, with their attempt history; reruns add nothing", async () => {
  const client = clientFor(gh);
  const first = await fileTechDebtIssues(client, findings, opts);
  expect(first.created.map((c) => c.findingId)).toEqual(["F-1", "F-2"]);
  expect(first.existing).toEqual([]);
  expect(gh.issues()).toHaveLength(2);
  const issue = gh.issues().find((i) => i.body.includes(findingMarker("fp-F-1")));
  expect(issue?.labels).toEqual(["tech-debt"]);
  expect(issue?.title).toBe("[P1] Problem F-1");
  expect(issue?.body).toContain("| 1 | deferred | needs the new schema first | — |");
  expect(issue?.body).toContain("| 2 | blocked | external dependency: vendor API | abc123def456 |");
  expect(issue?.body).toContain(opts.prUrl);

  const second = await fileTechDebtIssues(client, findings, opts);
  expect(second.created).toEqual([]);
  expect(second.existing.map((e) => e.findingId)).toEqual(["F-1", "F-2"]);
  expect(gh.issues()).toHaveLength(2);
  // One listing per batch, however many findings.
  expect(gh.requests.filter((r) => r.method === "GET" && r.pathname.endsWith("/issues"))).toHaveLength(2);
});

test("follow-ups are filed too, and a closed issue still counts as filed", async () => {
  gh.addIssue({ title: "old", labels: ["tech-debt"], body: `x ${findingMarker("fp-F-2")}`, state: "closed" });
  const res = await fileTechDebtIssues(clientFor(gh), findings, {
    ...opts,
    followups: [finding("F-5", { severity: "P3", status: "open" })],
  });
  expect(res.created.map((c) => c.findingId)).toEqual(["F-1", "F-5"]);
  expect(res.existing).toEqual([{ findingId: "F-2", number: 1 }]);
});

test("a rate-limited create is retried with backoff; nothing is duplicated", async () => {
  gh.inject({ route: "POST /repos/acme/shop/issues", status: 429, retryAfter: 2, times: 1 });
  gh.inject({ route: "POST /repos/acme/shop/issues", status: 502, times: 1 });
  const clock = fakeClock();
  const res = await fileTechDebtIssues(clientFor(gh, { clock }), findings, opts);
  expect(res.created).toHaveLength(2);
  expect(res.failed).toEqual([]);
  expect(clock.slept[0]).toBe(2000);
  expect(gh.issues()).toHaveLength(2);
});

test("a permanent failure is reported for every missing issue and a rerun files them", async () => {
  gh.inject({ route: "POST /repos/acme/shop/issues", status: 403, times: 1 });
  const client = clientFor(gh);
  const res = await fileTechDebtIssues(client, findings, opts);
  expect(res.created).toEqual([]);
  expect(res.failed.map((f) => f.findingId)).toEqual(["F-1", "F-2"]);
  expect(res.failed[0]?.reason).toContain("token lacks issues:write");
  expect(gh.requests.filter((r) => r.method === "POST")).toHaveLength(1);

  const again = await fileTechDebtIssues(client, findings, opts);
  expect(again.created.map((c) => c.findingId)).toEqual(["F-1", "F-2"]);
});
