import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  GITHUB_COMMENT_MAX,
  HOSTILE_READERS,
  HOSTILE_SHAPES,
  hostileText,
} from "../../bench/hostile-text.js";
import { normalizeFindingId } from "../../src/findings/lenient.js";
import { isMarkerLine } from "../../src/github/bots/marker-line.js";
import { parseBotComment } from "../../src/github/bots/registry.js";
import { TAG_PATTERNS } from "../../src/github/severity-tags.js";
import { titleOf } from "../../src/github/thread-finding.js";

/**
 * Review bots' and people's comments, and agents' output, are untrusted and can be as long as
 * GitHub allows. Each shape below once made a reader backtrack: a 90-character line of markers
 * took 12 s, a comment of tabs 22 s, and longer ones never ended. Read now in one pass, each is
 * done long before a test's time runs out. (How long they take is measured by `npm run bench --
 * hostile`, not here.)
 */
describe("untrusted text of GitHub's largest size, in shapes that make a backtracking regex retry", () => {
  it.each(HOSTILE_SHAPES.map((s) => [s.name, s] as const))("%s is read by every reader", (_name, shape) => {
    const text = hostileText(shape, GITHUB_COMMENT_MAX);
    for (const reader of HOSTILE_READERS) expect(() => reader.read(text), reader.name).not.toThrow();
  });

  it("a bot comment of such a shape still becomes a finding with a short title", () => {
    for (const shape of HOSTILE_SHAPES) {
      const { finding } = parseBotComment({
        author: "a-bot-nobody-configured",
        authorIsBot: true,
        body: `${hostileText(shape, GITHUB_COMMENT_MAX)}\nThe cache is never invalidated.`,
      });
      expect(finding, shape.name).not.toBeNull();
      expect(finding?.title.length ?? 0, shape.name).toBeLessThanOrEqual(100);
    }
  });

  it("a person's comment that opens with a long line of italic markers is titled by the line after it", () => {
    const markers = `${"_a_  ".repeat(40)}`.trimEnd();
    expect(titleOf(`${markers}\nThe retry loop never ends. More below.`)).toBe("The retry loop never ends");
  });
});

/** A short string of `tokens` (short enough for the old patterns to answer at once). */
const line = (tokens: string[], max = 14) =>
  fc.array(fc.constantFrom(...tokens), { maxLength: max }).map((t) => t.join(""));

describe("the linear patterns accept exactly what the backtracking ones did", () => {
  it("CodeRabbit's severity line (shortcodes as whole tokens)", () => {
    const OLD =
      /^\s*_(?::[a-z0-9_+-]{1,40}:|[^_\n]){1,80}_(?:\s*\|\s*_(?::[a-z0-9_+-]{1,40}:|[^_\n]){1,80}_){0,4}\s*$/u;
    // A marker whose middle `:_:` is a shortcode: replacing shortcodes first read it another way.
    expect(isMarkerLine("_:warning:_:warning:_")).toBe(true);
    const tokens = ["_", " ", "\t", "|", "a", "Major", "⚠️", "🟠", ":warning:", ":x_y:", ":", "_:", "-", "\n"];
    fc.assert(
      fc.property(line(tokens, 16), (l) => {
        expect(isMarkerLine(l)).toBe(OLD.test(l));
      }),
      { numRuns: 3000 },
    );
  });

  it("the common severity tags", () => {
    const WORDS = "critical|blocker|major|high|medium|minor|low|nitpick|nit|trivial|p[0-3]";
    const LEAD = "(?:(?:🔴|🟠|🟡|🟢|🔵|⚪|⚠️|❗|‼️)\\s*)?";
    const OLD = [
      new RegExp(`\\*\\*\\s*${LEAD}(${WORDS})\\s*:?\\s*\\*\\*`, "iu"),
      null,
      null,
      null,
      new RegExp(`^\\s*(?:severity|priority)\\s*[:=]\\s*\\**\\s*(${WORDS})\\b`, "imu"),
      new RegExp(`^\\s*(${WORDS})\\s*:`, "imu"),
    ];
    const tokens = [
      "**",
      "*",
      " ",
      "\t",
      "\n",
      "\r",
      "\u00a0",
      ":",
      "=",
      "high",
      "P1",
      "severity",
      "🔴",
      "x",
    ];
    fc.assert(
      fc.property(line(tokens), (l) => {
        OLD.forEach((old, i) => {
          if (old) expect(TAG_PATTERNS[i]?.test(l), `pattern ${i}`).toBe(old.test(l));
        });
      }),
      { numRuns: 3000 },
    );
  });

  it("a finding id", () => {
    const old = (s: string) => {
      const m = /^(?:F-?)?0*(\d+)$/i.exec(s.trim());
      return m?.[1] ? `F-${m[1]}` : s.trim();
    };
    fc.assert(
      fc.property(line(["F", "f", "-", "0", "1", "9", " ", "x"], 10), (id) => {
        expect(normalizeFindingId(id)).toBe(old(id));
      }),
      { numRuns: 3000 },
    );
  });
});
