/**
 * The pieces every page is built from: the escaping template, the markdown sanitiser, the diff
 * parser (property-tested), chunked artifact reads, request parameters and the access decision.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { accessFor, isLoopback } from "../../src/server/access.js";
import { pullRequestUrl } from "../../src/server/app-api.js";
import { completeUtf8, readArtifactChunk } from "../../src/server/artifacts.js";
import { parseUnifiedDiff } from "../../src/server/diff.js";
import { escapeHtml, html, trustedHtml } from "../../src/server/html.js";
import { renderMarkdown } from "../../src/server/markdown.js";
import { parseSince, parseUsd } from "../../src/server/query.js";

function decodeEntities(s: string): string {
  return s
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&#96;", "`")
    .replaceAll("&amp;", "&");
}

describe("html template", () => {
  it("escapes every interpolated string and keeps Html values as they are", () => {
    const inner = html`<b>${"<i>"}</b>`;
    expect(
      html`<p title="${'"x" onmouseover=1'}">${"<script>"}${inner}${[1, " & ", null, false]}</p>`.value,
    ).toBe('<p title="&quot;x&quot; onmouseover=1">&lt;script&gt;<b>&lt;i&gt;</b>1 &amp; </p>');
    expect(trustedHtml("<em>ok</em>").value).toBe("<em>ok</em>");
  });

  it("property: any text comes out with no markup characters and reads back unchanged", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        const out = html`${s}`.value;
        expect(out).not.toMatch(/[<>"'`]/);
        // Strings long enough to hold a secret are redacted; these carry none.
        expect(decodeEntities(out)).toBe(s);
        expect(escapeHtml(s)).toBe(out);
      }),
    );
  });

  it("an object shaped like Html but not made by the module is still escaped", () => {
    const forged = { value: "<script>x</script>" } as unknown as string;
    expect(html`${forged}`.value).not.toContain("<script>");
  });

  it("redacts secrets in interpolated text", () => {
    const out = html`${"key sk-ant-abcdefghijklmnopqrstuvwxyz012345 here"}`.value;
    expect(out).not.toContain("abcdefghijklmnopqrstuvwxyz012345");
    expect(out).toContain("[REDACTED]");
  });
});

describe("markdown", () => {
  it("renders markdown, escapes raw HTML and drops javascript: links", () => {
    const out = renderMarkdown(
      '**b** <script>alert(1)</script> <img src=x onerror="alert(1)"> [x](javascript:alert(1))',
    ).value;
    expect(out).toContain("<strong>b</strong>");
    expect(out).not.toMatch(/<script|<img|javascript:/);
    expect(out).toContain("&lt;script&gt;");
  });
});

describe("unified diff parser", () => {
  const sample = [
    "diff --git a/src/a.js b/src/a.js",
    "index 1..2 100644",
    "--- a/src/a.js",
    "+++ b/src/a.js",
    "@@ -1,3 +1,4 @@",
    " one",
    "-two",
    "+deux",
    "+trois",
    " four",
    "\\ No newline at end of file",
  ].join("\n");

  it("numbers added and context lines in the new file", () => {
    const [file] = parseUnifiedDiff(sample);
    expect(file?.path).toBe("src/a.js");
    expect(file?.lines.filter((l) => l.newLine !== null).map((l) => [l.newLine, l.text])).toEqual([
      [1, " one"],
      [2, "+deux"],
      [3, "+trois"],
      [4, " four"],
    ]);
  });

  it("property: every input line appears once, in order, and new-file numbers only grow within a file", () => {
    const line = fc.oneof(
      fc.constantFrom("diff --git a/x b/x", "@@ -1,2 +3,4 @@", "--- a/x", "+++ b/x", "\\ No newline"),
      fc.string().map((s) => s.replace(/\n/g, "")),
      fc.tuple(fc.constantFrom("+", "-", " "), fc.string()).map(([p, s]) => p + s.replace(/\n/g, "")),
    );
    fc.assert(
      fc.property(fc.array(line, { maxLength: 60 }), (lines) => {
        // git ends every line with a newline
        const files = parseUnifiedDiff(lines.map((l) => `${l}\n`).join(""));
        expect(files.flatMap((f) => f.lines.map((l) => l.text))).toEqual(lines);
        for (const f of files) {
          let last = 0;
          for (const l of f.lines) {
            if (l.kind === "hunk") last = 0;
            if (l.newLine !== null) {
              expect(l.newLine).toBeGreaterThan(last);
              last = l.newLine;
            }
          }
        }
      }),
    );
  });
});

describe("artifact chunks", () => {
  it("property: chunks never split a UTF-8 character and join back to the file", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fixpoint-artifacts-"));
    try {
      mkdirSync(join(dir, "transcripts", "t-1"), { recursive: true });
      await fc.assert(
        fc.asyncProperty(
          fc.string({ unit: "binary", maxLength: 200 }),
          fc.integer({ min: 4, max: 40 }),
          async (text, size) => {
            writeFileSync(join(dir, "transcripts", "t-1", "a.txt"), text);
            let out = "";
            let offset: number | null = 0;
            while (offset !== null) {
              const chunk = await readArtifactChunk(dir, "t-1", "a.txt", offset, size);
              out += chunk.text;
              offset = chunk.next;
            }
            expect(out).toBe(Buffer.from(text, "utf8").toString("utf8"));
          },
        ),
        { numRuns: 60 },
      );
      await expect(readArtifactChunk(dir, "t-1", "../../etc/passwd", 0, 10)).rejects.toMatchObject({
        code: "not_found",
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("completeUtf8 cuts before an incomplete trailing sequence only", () => {
    const euro = Buffer.from("a€", "utf8"); // 61 e2 82 ac
    expect(completeUtf8(euro, 4)).toBe(4);
    expect(completeUtf8(euro, 3)).toBe(1);
    expect(completeUtf8(euro, 2)).toBe(1);
    expect(completeUtf8(Buffer.from("abc"), 3)).toBe(3);
  });
});

describe("parameters and access", () => {
  it("since takes durations, all, or a date; anything else is a usage error", () => {
    const now = Date.parse("2026-01-02T00:00:00Z");
    expect(parseSince(undefined, now)).toEqual({ since: now - 86_400_000, label: "24h" });
    expect(parseSince("7d", now).since).toBe(now - 7 * 86_400_000);
    expect(parseSince("all", now).since).toBeUndefined();
    expect(parseSince("2026-01-01T08:00:00Z", now).since).toBe(Date.parse("2026-01-01T08:00:00Z"));
    expect(() => parseSince("soon", now)).toThrow(/since: `soon`/);
    expect(parseUsd("budget", "$2.50")).toBe(2.5);
    expect(() => parseUsd("budget", "0")).toThrow(/budget/);
  });

  it("loopback needs no token; any other address needs one, from FIXPOINT_SERVE_TOKEN or generated", () => {
    for (const h of ["127.0.0.1", "localhost", "::1", "127.1.2.3"]) expect(isLoopback(h), h).toBe(true);
    for (const h of ["0.0.0.0", "192.168.1.5", "::", "example.com"]) expect(isLoopback(h), h).toBe(false);
    expect(accessFor("127.0.0.1", {})).toEqual({ token: undefined, fromEnv: false, loopbackOnly: true });
    expect(accessFor("0.0.0.0", { FIXPOINT_SERVE_TOKEN: "chosen" })).toEqual({
      token: "chosen",
      fromEnv: true,
      loopbackOnly: false,
    });
    const a = accessFor("0.0.0.0", {});
    const b = accessFor("0.0.0.0", {});
    expect(a.token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(a.token).not.toBe(b.token);
  });
});

describe("pull request links", () => {
  const github = {
    repo: "acme/widgets",
    allowAuthors: [],
    bots: [],
    maxReworkCycles: 3,
    commentTimeoutMs: 1,
    label: "fixpoint",
    techDebtLabel: "tech-debt",
    resolveHumanThreads: false,
    draft: false,
    waitForReview: false,
  };
  it("point at github.com, or the web host of an Enterprise API URL; none without GitHub", () => {
    expect(pullRequestUrl(github, 12)).toBe("https://github.com/acme/widgets/pull/12");
    expect(pullRequestUrl({ ...github, baseUrl: "https://ghe.example/api/v3" }, 3)).toBe(
      "https://ghe.example/acme/widgets/pull/3",
    );
    expect(pullRequestUrl({ ...github, baseUrl: "javascript:alert(1)//" }, 3)).toBeNull();
    expect(pullRequestUrl({ ...github, repo: 'acme/widgets"><script>' }, 3)).toBeNull();
    expect(pullRequestUrl(null, 3)).toBeNull();
  });
});
