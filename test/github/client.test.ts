import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { createGithubClient } from "../../src/github/client.js";
import { type FakeGithub, startFakeGithub } from "../fakes/github-server/index.js";
import { clientFor } from "./helpers.js";

let gh: FakeGithub;
beforeEach(async () => {
  gh = await startFakeGithub();
});
afterEach(async () => {
  await gh.close();
});

describe("pagination", () => {
  test("reads all 250 inline comments across three REST pages", async () => {
    const pull = gh.addPull();
    gh.addComments(pull.number, 250);
    const comments = await clientFor(gh).listReviewComments(pull.number);
    expect(comments).toHaveLength(250);
    expect(new Set(comments.map((c) => c.id)).size).toBe(250);
    expect(comments.at(-1)?.body).toBe("Comment number 250.");
    const pages = gh.requests.filter((r) => r.pathname.endsWith(`/pulls/${pull.number}/comments`));
    expect(pages).toHaveLength(3);
    expect(pages.every((r) => r.query.per_page === "100")).toBe(true);
  });

  test("reads all 250 review threads through GraphQL cursors", async () => {
    const pull = gh.addPull();
    gh.addComments(pull.number, 250);
    const threads = await clientFor(gh).listReviewThreads(pull.number);
    expect(threads).toHaveLength(250);
    expect(threads.map((t) => t.line)).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    expect(gh.requests.filter((r) => r.graphqlOp === "reviewThreads")).toHaveLength(3);
  });

  test("completes a thread with more than a page of comments", async () => {
    const pull = gh.addPull();
    const comments = Array.from({ length: 130 }, (_, i) => ({ author: "alice", body: `reply ${i}` }));
    gh.addThread(pull.number, { comments });
    const [thread] = await clientFor(gh).listReviewThreads(pull.number);
    expect(thread?.comments).toHaveLength(130);
    expect(thread?.comments.at(-1)?.body).toBe("reply 129");
    expect(gh.requests.some((r) => r.graphqlOp === "node")).toBe(true);
  });

  test("reads conversation comments and reviews across pages", async () => {
    const pull = gh.addPull();
    for (let i = 0; i < 120; i++) gh.addIssueComment(pull.number, { author: "bob", body: `c${i}` });
    for (let i = 0; i < 105; i++) gh.addReview(pull.number, { author: "carol", body: `r${i}` });
    const client = clientFor(gh);
    expect(await client.listIssueComments(pull.number)).toHaveLength(120);
    expect(await client.listReviews(pull.number)).toHaveLength(105);
  });
});

describe("review threads", () => {
  test("report resolution, outdatedness, lines and bot authors", async () => {
    const pull = gh.addPull();
    gh.addThread(pull.number, {
      path: "a.ts",
      line: 5,
      startLine: 3,
      comments: [{ author: "alice", body: "x" }],
    });
    gh.addThread(pull.number, { resolved: true, comments: [{ author: "alice", body: "y" }] });
    gh.addThread(pull.number, {
      outdated: true,
      line: 40,
      comments: [{ author: { login: "coderabbitai", bot: true }, body: "z" }],
    });
    const [open, resolved, outdated] = await clientFor(gh).listReviewThreads(pull.number);
    expect(open).toMatchObject({ isResolved: false, isOutdated: false, path: "a.ts", line: 5, startLine: 3 });
    expect(resolved?.isResolved).toBe(true);
    expect(outdated).toMatchObject({ isOutdated: true, line: null, originalLine: 40 });
    expect(outdated).toMatchObject({ author: "coderabbitai", authorIsBot: true });
  });

  test("reply in a thread, then resolve it", async () => {
    const pull = gh.addPull();
    const thread = gh.addThread(pull.number, { comments: [{ author: "alice", body: "rename this" }] });
    const first = thread.comments[0];
    if (!first) throw new Error("seeded thread has no comment");
    const client = clientFor(gh);
    const reply = await client.replyToReviewComment(pull.number, first.id, "Applied in abc123: renamed");
    expect(reply.inReplyTo).toBe(first.id);
    await client.resolveReviewThread(thread.id);
    expect(gh.thread(thread.id).isResolved).toBe(true);
    expect(gh.thread(thread.id).comments.map((c) => c.body)).toEqual([
      "rename this",
      "Applied in abc123: renamed",
    ]);
    const [after] = await client.listReviewThreads(pull.number);
    expect(after?.isResolved).toBe(true);
  });
});

describe("pull requests", () => {
  test("create as draft, find by head, update, mark ready", async () => {
    const client = clientFor(gh);
    const created = await client.createPull({
      title: "T",
      body: "B",
      head: "fixpoint/t-1-x",
      base: "main",
      draft: true,
    });
    expect(created).toMatchObject({ title: "T", draft: true, state: "open", head: "fixpoint/t-1-x" });
    expect(await client.findPullByHead("fixpoint/t-1-x")).toMatchObject({ number: created.number });
    expect(await client.findPullByHead("nope")).toBeNull();
    const updated = await client.updatePull(created.number, { body: "B2" });
    expect(updated).toMatchObject({ title: "T", body: "B2", draft: true });
    await client.markReadyForReview(created.number);
    expect(gh.pull(created.number).draft).toBe(false);
    await client.updatePull(created.number, { draft: true });
    expect(gh.pull(created.number).draft).toBe(true);
  });

  test("findPullByHead prefers the open PR over an older closed one", async () => {
    const closed = gh.addPull({ head: "b", state: "closed" });
    const open = gh.addPull({ head: "b" });
    const found = await clientFor(gh).findPullByHead("b");
    expect(found?.number).toBe(open.number);
    expect(found?.number).not.toBe(closed.number);
  });

  test("lists open PRs with a label", async () => {
    gh.addPull({ labels: ["fixpoint"] });
    gh.addPull({ labels: ["other"] });
    gh.addPull({ labels: ["fixpoint"], state: "closed" });
    const pulls = await clientFor(gh).listOpenPullsWithLabel("fixpoint");
    expect(pulls).toHaveLength(1);
    expect(pulls[0]?.labels).toEqual(["fixpoint"]);
  });

  test("works against a GHE-style base URL (REST under /api/v3, GraphQL at /api/graphql)", async () => {
    const pull = gh.addPull();
    gh.addThread(pull.number, { comments: [{ author: "alice", body: "x" }] });
    const client = createGithubClient({ repo: gh.repo, baseUrl: gh.gheUrl, token: gh.token });
    expect((await client.getPull(pull.number)).number).toBe(pull.number);
    expect(await client.listReviewThreads(pull.number)).toHaveLength(1);
  });
});

describe("permissions, issues and comments", () => {
  test("write access means admin, maintain or write", async () => {
    gh.setPermission("alice", "maintain");
    gh.setPermission("rita", "read");
    const client = clientFor(gh);
    expect(await client.getCollaboratorPermission("alice")).toEqual({
      permission: "maintain",
      canWrite: true,
    });
    expect(await client.getCollaboratorPermission("rita")).toEqual({ permission: "read", canWrite: false });
    expect((await client.getCollaboratorPermission("stranger")).canWrite).toBe(false);
  });

  test("finds an issue by its marker among labelled issues, not PRs", async () => {
    gh.addPull({ labels: ["tech-debt"], body: "<!-- m:1 -->" });
    gh.addIssue({ title: "other", labels: ["tech-debt"], body: "<!-- m:2 -->" });
    const wanted = gh.addIssue({
      title: "closed",
      labels: ["tech-debt"],
      body: "x <!-- m:1 -->",
      state: "closed",
    });
    const client = clientFor(gh);
    expect((await client.searchIssuesByMarker("<!-- m:1 -->", { label: "tech-debt" }))?.number).toBe(
      wanted.number,
    );
    expect(await client.searchIssuesByMarker("<!-- m:3 -->", { label: "tech-debt" })).toBeNull();
  });

  test("creates issues and comments", async () => {
    const client = clientFor(gh);
    const issue = await client.createIssue({ title: "t", body: "b", labels: ["tech-debt"] });
    const comment = await client.createComment(issue.number, "hello");
    expect(comment.body).toBe("hello");
    expect(gh.issues()[0]).toMatchObject({ title: "t", labels: ["tech-debt"] });
    expect(gh.issues()[0]?.comments.map((c) => c.body)).toEqual(["hello"]);
  });
});
