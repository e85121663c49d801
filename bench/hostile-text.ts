import { parseFixReport } from "../src/findings/fix-parse.js";
import { judgeJustification } from "../src/findings/fix-validate.js";
import { normalizeFindingId } from "../src/findings/lenient.js";
import { parseReviewOutput } from "../src/findings/review-parse.js";
import { parseVerifyOutput } from "../src/findings/verify-parse.js";
import { parseBotComment, parseBotReviewBody } from "../src/github/bots/registry.js";
import type { BotComment } from "../src/github/bots/types.js";
import { threadToFinding } from "../src/github/thread-finding.js";
import { redactSecrets } from "../src/util/redact.js";
import { reviewThread } from "../test/github/helpers.js";

/**
 * Text built to make a backtracking regex retry: a unit repeated between a prefix and a suffix.
 * Each shape once made one of fixpoint's readers of untrusted text (bot and PR comments, agent
 * output) quadratic or worse: runs of blank lines read again from every line start, openers that
 * never close read to their bound from each one, spaces split between two quantifiers in every way.
 */
export interface HostileShape {
  name: string;
  prefix: string;
  unit: string;
  suffix: string;
}

const shape = (unit: string, prefix = "", suffix = ""): HostileShape => ({
  name: JSON.stringify(`${prefix}${unit}${unit.length < 4 ? unit : ""}…${suffix}`),
  prefix,
  unit,
  suffix,
});

export const HOSTILE_SHAPES: readonly HostileShape[] = [
  shape("\n", "", "*"),
  shape("\r"),
  shape("\n\t", "\u0000", ":"),
  shape("\n ", "LOCATIONS START", "\u0000"),
  shape("\t", "**LOGIC"),
  shape("\t", "[N", "T"),
  shape(" ", "**TODO(", "\u0000"),
  shape("\t ", "**high", "x"),
  shape("["),
  shape("<"),
  shape("<!--"),
  shape("![]("),
  shape("![](\u0000", "", "\n"),
  shape("[![]([", "", "\n"),
  shape("<IMG<M", "M"),
  shape("<PICTURE>U", "0", "a"),
  shape("<a <"),
  shape("_a_  ", "", "x"),
  shape(":a", "_", "_ | _:ax"),
  shape("0", "F-", "F"),
  shape("A", "_", "AFFAAs"),
  shape("a-", "", "://"),
  shape("https://-", "", "\t"),
  shape("```suggestion"),
  shape("n.lsn0", "", "\u0000"),
];

/** `shape` about `chars` characters long (the unit repeated). */
export function hostileText(s: HostileShape, chars: number): string {
  const reps = Math.max(1, Math.round((chars - s.prefix.length - s.suffix.length) / s.unit.length));
  return s.prefix + s.unit.repeat(reps) + s.suffix;
}

/** GitHub's largest comment body, in characters. */
export const GITHUB_COMMENT_MAX = 65_536;

const BOT_LOGINS = [
  "coderabbitai",
  "copilot-pull-request-reviewer",
  "gemini-code-assist",
  "chatgpt-codex-connector",
  "cursor",
  "greptile-apps",
  "sourcery-ai",
  "qodo-merge-pro",
  "a-bot-nobody-configured",
];

/** Every reader of untrusted text, by the name a report gives it. Each takes the whole text. */
export const HOSTILE_READERS: readonly { name: string; read: (text: string) => unknown }[] = [
  ...BOT_LOGINS.map((login) => ({
    name: `${login}'s comment`,
    read: (body: string) => {
      const comment: BotComment = { author: login, authorIsBot: true, body, path: "src/a.ts", line: 3 };
      return [parseBotComment(comment), parseBotReviewBody(comment)];
    },
  })),
  {
    name: "a person's review thread",
    read: (body: string) =>
      threadToFinding(
        reviewThread("PRRT_1", [
          { databaseId: 1, author: "someone", authorIsBot: false, body, createdAt: "2026-01-01T00:00:00Z" },
        ]),
      ),
  },
  { name: "a review's output", read: (text: string) => parseReviewOutput(text) },
  { name: "a fix report", read: (text: string) => parseFixReport(text) },
  { name: "a verification's output", read: (text: string) => parseVerifyOutput(text) },
  { name: "a fixer's justification", read: (text: string) => judgeJustification(text) },
  { name: "a finding id", read: (text: string) => normalizeFindingId(text) },
  { name: "secret redaction", read: (text: string) => redactSecrets(text, {}) },
];
