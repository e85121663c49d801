import { describe, expect, it } from "vitest";
import { withoutBlobIds } from "./diff-stable.js";

describe("withoutBlobIds", () => {
  it("drops git's blob-id header lines and nothing else", () => {
    const diff = [
      "diff --git a/src/a.js b/src/a.js",
      "index 3b18e51..a9c2f0d 100644",
      "--- a/src/a.js",
      "+++ b/src/a.js",
      "@@ -1 +1 @@",
      "-index 1..2 stays: it is content",
      "+export const a = 1;",
      "diff --git a/src/n.js b/src/n.js",
      "new file mode 100644",
      "index 0000000..e69de29",
      "",
    ].join("\n");
    expect(withoutBlobIds(diff)).toBe(
      [
        "diff --git a/src/a.js b/src/a.js",
        "--- a/src/a.js",
        "+++ b/src/a.js",
        "@@ -1 +1 @@",
        "-index 1..2 stays: it is content",
        "+export const a = 1;",
        "diff --git a/src/n.js b/src/n.js",
        "new file mode 100644",
        "",
      ].join("\n"),
    );
  });
});
