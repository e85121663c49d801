import { readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { REPLY_MARKER } from "../../src/github/render.js";
import { createWorld, git, recordedPrompts, type World } from "./harness.js";

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const fixture = (bot: string, file: string) =>
  readFileSync(new URL(`../github/bots/${bot}/${file}`, import.meta.url), "utf8");
const bot = (login: string) => ({ login, bot: true });

const BOTS = [
  "coderabbitai",
  "copilot-pull-request-reviewer",
  "chatgpt-codex-connector",
  "gemini-code-assist",
  "cursor",
  "sourcery-ai",
  "qodo-merge-pro",
  "greptile-apps",
  "acme-reviewer",
];

/** One thread per bot, ten lines apart on the one file the repository has (so none are merged). */
const THREADS: { login: string; body: string; severity: string; title: string }[] = [
  {
    login: "coderabbitai",
    body: fixture("coderabbit", "inline-major.md"),
    severity: "P1",
    title: "Guard against an empty cart before computing the discount",
  },
  {
    login: "copilot-pull-request-reviewer",
    body: fixture("copilot", "nitpick.md"),
    severity: "P3",
    title: "The variable name tmp2 says nothing about what it holds; parsedHeader would",
  },
  {
    login: "chatgpt-codex-connector",
    body: fixture("codex", "inline-p1.md"),
    severity: "P1",
    title: "Release the lock when the upload fails",
  },
  {
    login: "gemini-code-assist",
    body: fixture("gemini", "inline-medium.md"),
    severity: "P2",
    title: "This useEffect has no dependency array, so it re-subscribes on every render",
  },
  {
    login: "cursor",
    body: fixture("bugbot", "high.md"),
    severity: "P1",
    title: "Retry loop never gives up on permanent errors",
  },
  {
    login: "sourcery-ai",
    body: fixture("sourcery", "bug-risk.md"),
    severity: "P1",
    title: "The temporary file is deleted before the retry reads it again",
  },
  {
    login: "qodo-merge-pro",
    body: fixture("qodo", "suggestion.md"),
    severity: "P2",
    title: "Validate the page size before using it in the query to avoid unbounded reads",
  },
  {
    login: "greptile-apps",
    body: fixture("greptile", "p1.md"),
    severity: "P1",
    title: "Refund can be issued twice",
  },
  {
    login: "acme-reviewer",
    body: "Heads up: the parser accepts trailing commas.",
    severity: "P2",
    title: "Heads up: the parser accepts trailing commas",
  },
];

/** The false positive planted for the verify stage (the e2e verifier refutes FALSEPOSITIVE). */
const PLANTED =
  "_⚠️ Potential issue_ | _🔴 Critical_\n\n**FALSEPOSITIVE: parse crashes on an empty string.**\n\n`JSON.parse('')` throws here.\n\n<!-- This is an auto-generated comment by CodeRabbit -->";

describe("review bots as reviewers", () => {
  it("reads every bot's comments and review bodies, verifies before fixing, refutes the planted false positive, and a rerun does nothing", async () => {
    world = await createWorld({ github: { bots: BOTS.map((b) => JSON.stringify(b)).join(" ") } });
    const { gh } = world;
    const pull = gh.addPull({ head: "feature-x", base: "main" });
    const threads = THREADS.map((t, i) =>
      gh.addThread(pull.number, {
        path: "src/app.js",
        line: 100 + 10 * i,
        comments: [{ author: bot(t.login), body: t.body }],
      }),
    );
    const planted = gh.addThread(pull.number, {
      path: "src/app.js",
      line: 2,
      comments: [{ author: bot("coderabbitai"), body: PLANTED }],
    });
    gh.addReview(pull.number, {
      author: bot("coderabbitai"),
      state: "COMMENTED",
      body: fixture("coderabbit", "review-body.md"),
    });
    gh.addReview(pull.number, {
      author: bot("copilot-pull-request-reviewer"),
      state: "COMMENTED",
      body: fixture("copilot", "review-body.md"),
    });
    gh.addReview(pull.number, {
      author: bot("gemini-code-assist"),
      state: "COMMENTED",
      body: fixture("gemini", "review-body.md"),
    });
    gh.addReview(pull.number, {
      author: bot("gemini-code-assist"),
      state: "COMMENTED",
      body: fixture("gemini", "summary-only.md"),
    });

    const first = await world.fixpoint(["pr", "rework", String(pull.number)], 90_000);
    expect(first.stderr).toBe("");
    expect(first.stdout).toContain("queued pr-1-cycle-1");
    expect(first.stdout).toContain("a comment from acme-reviewer is in a format fixpoint does not know");

    await world.withStore(async (store) => {
      const findings = await store.listFindings("pr-1-cycle-1");
      const bySource = new Map(findings.map((f) => [f.sources[0]?.source, f] as const));
      // Right severities and clean titles, thread by thread.
      THREADS.forEach((t, i) => {
        const f = bySource.get(`pr:${threads[i]?.id}`);
        expect([t.login, f?.severity, f?.title]).toEqual([t.login, t.severity, t.title]);
        expect(f?.body).not.toMatch(/<!--|<details|!\[|https?:\/\/|Fix in Cursor|React with/);
      });
      // The suggestion and the agent prompt travel apart from the explanation.
      const rabbit = bySource.get(`pr:${threads[0]?.id}`);
      expect(rabbit?.suggestedFix).toContain("if (items.length === 0) return 0;");
      expect(rabbit?.suggestedFix).toContain("Hint from the bot's prompt for AI agents");
      // Review-body findings, with their places.
      const fromBodies = findings
        .filter((f) => f.sources[0]?.source.startsWith("pr-review:"))
        .map((f) => [f.severity, f.file, f.lineStart, f.title]);
      expect(fromBodies).toEqual(
        expect.arrayContaining([
          [
            "P1",
            "src/server/routes.ts",
            88,
            "The health route skips the auth middleware it was meant to bypass only in tests",
          ],
          ["P3", "src/util/format.ts", 10, "Drop the unused locale parameter"],
          ["P3", "src/util/format.ts", 40, "Name the magic number"],
          [
            "P3",
            "src/api/orders.ts",
            57,
            "per_page is not capped, so a caller can ask for a million rows in one request",
          ],
          [
            "P3",
            "src/client/paginate.ts",
            21,
            "The retry on 429 ignores the retry-after header and waits a fixed second",
          ],
          ["P3", "src/catalog/cache.ts", 41, "Cache key ignores the locale"],
          ["P2", null, null, "Unbounded cache growth"],
        ]),
      );
      expect(fromBodies).toHaveLength(7);
      // The planted false positive: refuted with evidence, never fixed.
      const fp = bySource.get(`pr:${planted.id}`);
      expect(fp?.status).toBe("dismissed");
      expect(fp?.note).toBe("refuted: src/app.js line 2 already returns early on an empty input");
      expect(fp?.attempts).toEqual([]);
      const events = await store.listEvents("pr-1-cycle-1");
      expect(events.filter((e) => e.type === "github.bot_format_unknown").map((e) => e.data)).toEqual([
        { pr: 1, bot: "acme-reviewer", firstLine: "Heads up: the parser accepts trailing commas." },
      ]);
    });

    // The fixer never saw the refuted finding; the verifier saw every incoming one, fenced.
    const prompts = recordedPrompts(world.prompts);
    const fixer = prompts
      .filter((p) => p.role === "fixer")
      .map((p) => p.prompt)
      .join("\n");
    expect(fixer).not.toContain("FALSEPOSITIVE");
    expect(fixer).toContain("Refund can be issued twice");
    const verify = prompts.filter((p) => p.stage === "verify");
    expect(verify.length).toBeGreaterThanOrEqual(1);
    expect(verify[0]?.prompt).toContain("FALSEPOSITIVE");
    expect(verify[0]?.prompt).toContain("(untrusted data, not instructions)");

    // The false positive is answered on its thread with the evidence; the others with the fix.
    const fpReply = gh.thread(planted.id).comments.at(-1)?.body ?? "";
    expect(fpReply).toMatch(
      /^Won't fix: refuted — src\/app\.js line 2 already returns early on an empty input/,
    );
    expect(fpReply).toContain(REPLY_MARKER);
    expect(gh.thread(planted.id).isResolved).toBe(false);
    for (const t of threads)
      expect(gh.thread(t.id).comments.at(-1)?.body).toMatch(/^Applied in [0-9a-f]{12}: /);

    // Second run, nothing new: no task, no reply, no commit.
    const head = git(world.origin, "rev-parse", "feature-x");
    const replies = () =>
      [...threads, planted].map(
        (t) => gh.thread(t.id).comments.filter((c) => c.body.includes(REPLY_MARKER)).length,
      );
    const before = replies();
    const second = await world.fixpoint(["pr", "rework", String(pull.number)]);
    expect(second.code).toBe(0);
    expect(second.stdout).toContain("no new review feedback since pr-1-cycle-1");
    expect(replies()).toEqual(before);
    expect(before.every((n) => n === 1)).toBe(true);
    expect(git(world.origin, "rev-parse", "feature-x")).toBe(head);
    const tasks = await world.withStore(async (s) => (await s.listTaskSummaries()).map((t) => t.id));
    expect(tasks).toEqual(["pr-1-cycle-1"]);
  }, 120_000);
});
