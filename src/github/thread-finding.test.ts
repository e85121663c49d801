import { describe, expect, test } from "vitest";
import type { ReviewThread } from "../domain/github.js";
import { parseSeverityTag } from "./severity-tags.js";
import { findingsFromThreads, threadToFinding, titleOf } from "./thread-finding.js";

function thread(over: Partial<ReviewThread> & { bodies?: string[] } = {}): ReviewThread {
  const { bodies = ["Use a constant here."], ...rest } = over;
  return {
    id: "PRRT_1",
    isResolved: false,
    isOutdated: false,
    path: "src/a.ts",
    line: 12,
    startLine: 10,
    originalLine: 12,
    originalStartLine: 10,
    author: "alice",
    authorIsBot: false,
    comments: bodies.map((body, i) => ({
      databaseId: i + 1,
      author: i === 0 ? "alice" : "bob",
      authorIsBot: false,
      body,
      createdAt: "2024-01-01T00:00:00Z",
    })),
    ...rest,
  };
}

describe("parseSeverityTag", () => {
  test.each([
    ["**Critical**: SQL injection", "P0"],
    ["[critical] unbounded loop", "P0"],
    ["🔴 Critical — leaks the token", "P0"],
    ["_⚠️ Potential issue_ | _🟠 Major_\n\n**Null deref**", "P1"],
    ["**High** risk of data loss", "P1"],
    ["[Medium] naming", "P2"],
    ["🟡 Minor: typo", "P2"],
    ["Nit: trailing space", "P3"],
    ["_🧹 Nitpick_ | _🔵 Trivial_", "P3"],
    ["severity: low\nsomething", "P3"],
    ["[P1] wrong status code", "P1"],
  ])("%s → %s", (text, severity) => {
    expect(parseSeverityTag(text)).toBe(severity);
  });

  test.each(["This is a minor point but a critical path", "Looks good to me", "the high-water mark"])(
    "prose is not a tag: %s",
    (text) => {
      expect(parseSeverityTag(text)).toBeNull();
    },
  );
});

describe("threadToFinding", () => {
  test("untagged: P2, first sentence as title, every comment with its author in the body", () => {
    const f = threadToFinding(thread({ bodies: ["Use a constant here. It repeats 3 times.", "Agreed."] }));
    expect(f).toMatchObject({
      severity: "P2",
      title: "Use a constant here",
      file: "src/a.ts",
      lineStart: 10,
      lineEnd: 12,
      source: "pr:PRRT_1",
      author: "alice",
    });
    expect(f.body).toBe("@alice:\nUse a constant here. It repeats 3 times.\n\n@bob:\nAgreed.");
  });

  test("CodeRabbit comment: severity from its marker, title from the bold line, suggestion kept", () => {
    const body = [
      "_⚠️ Potential issue_ | _🟠 Major_",
      "",
      "**Guard against a missing `user` before reading `user.id`.**",
      "",
      "```suggestion",
      "if (!user) return null;",
      "```",
    ].join("\n");
    const f = threadToFinding(thread({ bodies: [body] }));
    expect(f.severity).toBe("P1");
    expect(f.category).toBe("correctness");
    expect(f.title).toBe("Guard against a missing user before reading user.id");
    expect(f.suggestedFix).toBe("if (!user) return null;");
  });

  test("outdated threads fall back to the original lines; titles are cut at 100 chars", () => {
    const long = `${"word ".repeat(40)}end`;
    const f = threadToFinding(
      thread({
        line: null,
        startLine: null,
        originalLine: 7,
        originalStartLine: null,
        isOutdated: true,
        bodies: [long],
      }),
    );
    expect(f.lineStart).toBe(7);
    expect(f.lineEnd).toBe(7);
    expect(f.title.length).toBeLessThanOrEqual(100);
    expect(f.title.endsWith("…")).toBe(true);
  });

  test("only unresolved threads become findings, outdated ones included", () => {
    const found = findingsFromThreads([
      thread({ id: "A" }),
      thread({ id: "B", isResolved: true }),
      thread({ id: "C", isOutdated: true }),
      thread({ id: "D", isResolved: true, isOutdated: true }),
    ]);
    expect(found.map((f) => f.source)).toEqual(["pr:A", "pr:C"]);
  });

  test("titleOf strips markdown, links, html comments and tag-only lines", () => {
    expect(titleOf("<!-- x -->\n## [Fix the cache](http://x) now!\nmore")).toBe("Fix the cache now!");
    expect(titleOf("**Critical**\n\n> Tokens are logged in `debug()`")).toBe("Tokens are logged in debug()");
  });
});
