import { describe, expect, it } from "vitest";
import { expectClean, inline } from "./fixture.js";

const BOT = "greptile-apps";

describe("Greptile adapter", () => {
  it("reads the P-badge image, the bold title and the prompt to fix with AI", () => {
    const { finding, warning } = inline(BOT, "greptile", "p1.md");
    expect(warning).toBeUndefined();
    expect(finding.severity).toBe("P1");
    expect(finding.title).toBe("Refund can be issued twice");
    expect(finding.agentPrompt).toContain("Wrap the status check and the update in one transaction.");
    expect(finding.body).not.toMatch(/Note: If this suggestion/);
    expectClean(finding);
  });

  it("reads the older `**style:**` tag as P3", () => {
    const { finding } = inline(BOT, "greptile", "old-style.md");
    expect(finding.severity).toBe("P3");
    expect(finding.title).toBe("Inconsistent quote style: the rest of the file uses double quotes");
  });
});
