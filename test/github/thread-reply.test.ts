import { afterEach, beforeEach, expect, test } from "vitest";
import { respondToThread } from "../../src/github/thread-reply.js";
import { type FakeGithub, startFakeGithub } from "../fakes/github-server/index.js";
import { clientFor } from "./helpers.js";

let gh: FakeGithub;
beforeEach(async () => {
  gh = await startFakeGithub();
});
afterEach(async () => {
  await gh.close();
});

const fixed = { status: "fixed", sha: "abc123456789abcdef", justification: "guarded the null" } as const;

test("a fixed bot thread gets the reply and is resolved; a rerun does not reply twice", async () => {
  const pull = gh.addPull();
  const seeded = gh.addThread(pull.number, {
    comments: [{ author: { login: "coderabbitai", bot: true }, body: "x" }],
  });
  const client = clientFor(gh);
  const [thread] = await client.listReviewThreads(pull.number);
  if (!thread) throw new Error("no thread");
  expect(await respondToThread(client, pull.number, thread, fixed, { resolveHumanThreads: false })).toEqual({
    replied: true,
    resolved: true,
  });
  expect(gh.thread(seeded.id).isResolved).toBe(true);
  expect(gh.thread(seeded.id).comments[1]?.body).toMatch(/^Applied in abc123456789: guarded the null/);

  const [again] = await client.listReviewThreads(pull.number);
  if (!again) throw new Error("no thread");
  const second = await respondToThread(client, pull.number, again, fixed, { resolveHumanThreads: false });
  expect(second.replied).toBe(false);
  expect(gh.thread(seeded.id).comments).toHaveLength(2);
});

test("a person's thread is answered but left for them to resolve, unless configured", async () => {
  const pull = gh.addPull();
  const a = gh.addThread(pull.number, { comments: [{ author: "alice", body: "x" }] });
  const b = gh.addThread(pull.number, { comments: [{ author: "alice", body: "y" }] });
  const client = clientFor(gh);
  const [ta, tb] = await client.listReviewThreads(pull.number);
  if (!ta || !tb) throw new Error("no threads");
  await respondToThread(client, pull.number, ta, fixed, { resolveHumanThreads: false });
  await respondToThread(client, pull.number, tb, fixed, { resolveHumanThreads: true });
  expect(gh.thread(a.id).isResolved).toBe(false);
  expect(gh.thread(a.id).comments).toHaveLength(2);
  expect(gh.thread(b.id).isResolved).toBe(true);
});

test("a declined bot thread stays open with the reason", async () => {
  const pull = gh.addPull();
  const seeded = gh.addThread(pull.number, {
    comments: [{ author: { login: "coderabbitai", bot: true }, body: "x" }],
  });
  const client = clientFor(gh);
  const [thread] = await client.listReviewThreads(pull.number);
  if (!thread) throw new Error("no thread");
  const res = await respondToThread(
    client,
    pull.number,
    thread,
    { status: "blocked", justification: "needs a human decision" },
    { resolveHumanThreads: true },
  );
  expect(res).toEqual({ replied: true, resolved: false });
  expect(gh.thread(seeded.id).comments[1]?.body).toMatch(/^Declined: blocked — needs a human decision/);
});
