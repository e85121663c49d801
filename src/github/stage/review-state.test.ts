import { describe, expect, it } from "vitest";
import type { PullReview, ReviewThread, ThreadComment } from "../../domain/github.js";
import { REPLY_MARKER } from "../render.js";
import { judgeReviews } from "./review-state.js";

const HEAD = "b".repeat(40);
const OLD = "a".repeat(40);
let seq = 1;

function review(author: string, state: PullReview["state"], commitId: string | null = HEAD): PullReview {
  return { id: seq++, author, authorIsBot: false, state, body: "", submittedAt: null, commitId };
}

function comment(author: string, body: string): ThreadComment {
  return { databaseId: seq++, author, authorIsBot: false, body, createdAt: `2024-01-01T00:00:${seq}Z` };
}

function thread(comments: ThreadComment[], isResolved = false): ReviewThread {
  const thread: ReviewThread = {
    id: `T${seq++}`,
    isResolved,
    isOutdated: false,
    path: "a.ts",
    line: 1,
    startLine: null,
    originalLine: 1,
    originalStartLine: null,
    authorIsBot: false,
    author: comments[0]?.author ?? null,
    comments,
  };
  return thread;
}

/** Allowed view of a thread: fixpoint's replies are dropped by the author filter. */
function allowedView(t: ReviewThread): ReviewThread {
  return { ...t, comments: t.comments.filter((c) => !c.body.includes(REPLY_MARKER)) };
}

describe("judgeReviews", () => {
  const answered = thread([comment("alice", "Fix it."), comment("fixpoint", `Applied. ${REPLY_MARKER}`)]);

  it("waits while nobody reviewed the pushed head, whatever older heads got", () => {
    const r = judgeReviews(
      {
        reviews: [review("alice", "APPROVED", OLD), review("bob", "COMMENTED")],
        threads: [allowedView(answered)],
      },
      [answered],
      HEAD,
    );
    expect(r).toEqual({ kind: "waiting" });
  });

  it("approves when an allowed reviewer approved the head and every thread is answered or resolved", () => {
    const resolved = thread([comment("alice", "Old point.")], true);
    const r = judgeReviews(
      {
        reviews: [review("alice", "CHANGES_REQUESTED"), review("alice", "APPROVED")],
        threads: [allowedView(answered), resolved],
      },
      [answered, resolved],
      HEAD,
    );
    expect(r).toEqual({ kind: "approved", by: ["alice"] });
  });

  it("asks for changes when one reviewer's latest review on the head requests them", () => {
    const r = judgeReviews(
      { reviews: [review("alice", "APPROVED"), review("bob", "CHANGES_REQUESTED")], threads: [] },
      [],
      HEAD,
    );
    expect(r).toEqual({ kind: "changes", by: ["bob"], threads: [] });
  });

  it("asks for changes when a reviewer spoke after fixpoint's reply, even with an approval", () => {
    const spoke = thread([
      comment("alice", "Fix it."),
      comment("fixpoint", `Applied. ${REPLY_MARKER}`),
      comment("alice", "Still broken for empty input."),
    ]);
    const r = judgeReviews(
      { reviews: [review("alice", "APPROVED")], threads: [allowedView(spoke)] },
      [spoke],
      HEAD,
    );
    expect(r).toEqual({ kind: "changes", by: ["alice"], threads: [spoke.id] });
  });

  it("a dismissed review withdraws its reviewer's state", () => {
    const r = judgeReviews(
      { reviews: [review("bob", "CHANGES_REQUESTED"), review("bob", "DISMISSED")], threads: [] },
      [],
      HEAD,
    );
    expect(r).toEqual({ kind: "waiting" });
  });

  it("matches each allowed thread with its raw one whatever the order, and with none when it has none", () => {
    const answeredToo = thread([comment("bob", "Rename it."), comment("fixpoint", `Done. ${REPLY_MARKER}`)]);
    const spoke = thread([
      comment("carol", "Why?"),
      comment("fixpoint", `Because. ${REPLY_MARKER}`),
      comment("carol", "No."),
    ]);
    const bare = thread([comment("dave", "Typo.")]);
    const raw = [answered, answeredToo, spoke];
    const views = [spoke, answered, bare, answeredToo].map(allowedView);
    // `bare` is not among the raw threads: it is judged by its own comments (never answered).
    const r = judgeReviews({ reviews: [], threads: views }, raw, HEAD);
    expect(r).toEqual({ kind: "changes", by: ["carol", "dave"], threads: [spoke.id, bare.id] });
    const inOrder = judgeReviews({ reviews: [], threads: raw.map(allowedView) }, raw, HEAD);
    expect(inOrder).toEqual({ kind: "changes", by: ["carol"], threads: [spoke.id] });
  });
});
