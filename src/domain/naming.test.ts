import { execFileSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { branchName, slugify, worktreePath } from "./naming.js";

/** git's own verdict on a branch name. */
function gitAcceptsBranch(name: string): boolean {
  try {
    execFileSync("git", ["check-ref-format", "--branch", name], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

describe("branchName", () => {
  it("joins the task id and a lowercase slug of the title", () => {
    expect(branchName("t-12", "Add rate limiting to the API")).toBe(
      "fixpoint/t-12-add-rate-limiting-to-the-api",
    );
  });

  it("folds accents and drops punctuation and symbols", () => {
    expect(branchName("t-1", "Café: naïve résumé — v2.0!")).toBe("fixpoint/t-1-cafe-naive-resume-v2-0");
    expect(branchName("t-2", "Fix ../../etc/passwd & ~HEAD^ @{u} refs.lock")).toBe(
      "fixpoint/t-2-fix-etc-passwd-head-u-refs-lock",
    );
  });

  it("falls back to the id alone when the title has no ASCII words", () => {
    expect(branchName("t-3", "修复登录错误")).toBe("fixpoint/t-3");
    expect(branchName("t-4", "   ...   ")).toBe("fixpoint/t-4");
  });

  it("cuts long titles at a word boundary, at most 40 characters, without a trailing dash", () => {
    const name = branchName("t-5", "Refactor the configuration loader so that environment overrides win");
    const slug = name.slice("fixpoint/t-5-".length);
    expect(slug).toBe("refactor-the-configuration-loader-so");
    expect(slug.length).toBeLessThanOrEqual(40);
    expect(slugify("a".repeat(100))).toBe("a".repeat(40));
  });

  it("folds every title as the Unicode fold does, ASCII ones without it", () => {
    const folded = (text: string) =>
      text
        .normalize("NFKD")
        .replace(/\p{M}/gu, "")
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, "-")
        .replace(/^-+|-+$/g, "")
        .slice(0, 40);
    const title = fc.oneof(fc.string(), fc.string({ unit: "grapheme" }), fc.string({ unit: "binary" }));
    fc.assert(
      fc.property(title, (text) => {
        const slug = slugify(text, 1000);
        expect(slug.slice(0, 40)).toBe(folded(text));
      }),
      { numRuns: 500 },
    );
    expect(slugify("Café au lait")).toBe("cafe-au-lait");
  });

  it("makes hostile task ids safe too", () => {
    expect(branchName("../x y", "Title")).toBe("fixpoint/x-y-title");
  });

  it("always produces a name git accepts", () => {
    const titles = ["Ünïcödé ☃ title", "-leading dash", "trailing.", "a..b", "x.lock", "@{-1}", "", "🚀🚀🚀"];
    for (const title of titles) {
      const name = branchName("pr-7-cycle-2", title);
      expect(gitAcceptsBranch(name), name).toBe(true);
    }
  });
});

describe("worktreePath", () => {
  it("puts the task under <root>/<repo>-<hash>/<id>", () => {
    expect(worktreePath("/home/u/.fixpoint/worktrees", "/src/api", "t-9")).toMatch(
      /^\/home\/u\/\.fixpoint\/worktrees\/api-[0-9a-f]{8}\/t-9$/,
    );
  });

  it("keeps two repositories with the same name apart, and is stable for one repository", () => {
    const a = worktreePath("/w", "/work/one/api", "t-1");
    const b = worktreePath("/w", "/work/two/api", "t-1");
    expect(a).not.toBe(b);
    expect(worktreePath("/w", "/work/one/api/", "t-1")).toBe(a);
  });

  it("never lets a task id leave the root", () => {
    expect(worktreePath("/w", "/r/app", "../../etc")).toMatch(/^\/w\/app-[0-9a-f]{8}\/etc$/);
  });
});
