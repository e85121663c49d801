import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { type BotFinding, parseBotComment, parseBotReviewBody } from "../../../src/github/bots/registry.js";

const HERE = new URL(".", import.meta.url).pathname;

export function fixture(bot: string, file: string): string {
  return readFileSync(join(HERE, bot, file), "utf8");
}

/** The finding an inline comment of `login` yields (fails the test when there is none). */
export function inline(login: string, bot: string, file: string) {
  const parsed = parseBotComment({ author: login, authorIsBot: true, body: fixture(bot, file) });
  if (!parsed.finding) throw new Error(`${bot}/${file}: no finding`);
  return { ...parsed, finding: parsed.finding };
}

export function reviewBody(login: string, bot: string, file: string): BotFinding[] {
  return parseBotReviewBody({ author: login, authorIsBot: true, body: fixture(bot, file) });
}

/** Nothing a fixer should not see: markup, badge URLs, fingerprints, collapsed blocks, footers. */
export function expectClean(f: Pick<BotFinding, "title" | "body">): void {
  for (const text of [f.title, f.body]) {
    expect(text).not.toMatch(/<!--|-->|<\/?(?:details|summary|sub|sup|img|picture|a)\b|!\[|https?:\/\//i);
    expect(text).not.toMatch(
      /fingerprint|BUGBOT_BUG_ID|Analysis chain|auto-generated|Committable suggestion|Prompt for AI|Fix in Cursor|React with/i,
    );
  }
  expect(f.title).not.toMatch(/[*`#|]/);
  expect(f.title.length).toBeGreaterThan(3);
  expect(f.title.length).toBeLessThanOrEqual(100);
}
