import { describe, expect, it } from "vitest";
import { didYouMean, didYouMeanSuffix } from "./did-you-mean.js";

describe("didYouMean", () => {
  it("suggests the closest candidate for a typo", () => {
    expect(didYouMean("blocking_opn", ["open", "blocking_open", "cycle"])).toBe("blocking_open");
    expect(didYouMean("agnet", ["agent", "review", "fix"])).toBe("agent");
    expect(didYouMean("Promt", ["prompt", "agent"])).toBe("prompt");
  });

  it("suggests nothing when no candidate is plausibly meant", () => {
    expect(didYouMean("zebra", ["agent", "review", "fix"])).toBeUndefined();
    expect(didYouMean("x", [])).toBeUndefined();
  });

  it("formats a suffix for messages", () => {
    expect(didYouMeanSuffix("gats", ["gates"])).toBe(" (did you mean `gates`?)");
    expect(didYouMeanSuffix("zzz", ["gates"])).toBe("");
  });
});
