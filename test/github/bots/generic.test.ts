import { describe, expect, it } from "vitest";
import { botDefaults, parseBotComment } from "../../../src/github/bots/registry.js";
import { fixture } from "./fixture.js";

describe("generic bot adapter", () => {
  it("reads a common severity tag and strips it from the title", () => {
    const r = parseBotComment({
      author: "acme-reviewer",
      authorIsBot: true,
      body: fixture("generic", "tagged.md"),
    });
    expect(r.adapter).toBe("generic");
    expect(r.warning).toBeUndefined();
    expect(r.finding?.severity).toBe("P1");
    expect(r.finding?.title).toBe(
      "The migration drops the orders.note column that the export job still reads",
    );
  });

  it("gives an untagged comment the bot's configured default and says so", () => {
    const body = fixture("generic", "untagged.md");
    const r = parseBotComment(
      { author: "acme-reviewer", authorIsBot: true, body },
      botDefaults({ "acme-reviewer": { severity: "P1" } }),
    );
    expect(r.finding?.severity).toBe("P1");
    expect(r.warning).toEqual({
      bot: "acme-reviewer",
      firstLine: "Heads up: this endpoint is not covered by the rate limiter.",
    });
    const plain = parseBotComment({ author: "acme-reviewer", authorIsBot: true, body });
    expect(plain.finding?.severity).toBe("P2");
  });
});
