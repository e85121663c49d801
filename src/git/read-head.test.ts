import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { readHead } from "./fs-state.js";
import { createTempRepo, type TempRepo } from "./temp-repo.js";

describe("readHead: HEAD's commit read from the files", () => {
  let t: TempRepo | undefined;
  afterEach(() => t?.cleanup());

  it("follows a worktree removed and made again at the same place to its new branch", () => {
    t = createTempRepo();
    const repo = t;
    const place = join(repo.dir, "wt");
    repo.git(["worktree", "add", "-q", "-b", "first", place]);
    const first = repo.commit({ "a.txt": "one\n" }, "on first", place);
    expect(readHead(place)).toBe(first);
    // Asked again (it is remembered), and after a commit moves the branch.
    const second = repo.commit({ "a.txt": "two\n" }, "on first again", place);
    expect(readHead(place)).toBe(second);

    repo.git(["worktree", "remove", "--force", place]);
    repo.git(["worktree", "prune"]);
    // Another worktree at the same place, under another name: its `.git` file names another folder.
    repo.git(["worktree", "add", "-q", "-b", "other", place, "main"]);
    const other = repo.commit({ "b.txt": "b\n" }, "on other", place);
    expect(readHead(place)).toBe(other);
    expect(repo.git(["rev-parse", "HEAD"], place)).toBe(other);
  });

  it("reads a `.git` file rewritten in place to name another worktree's folder", () => {
    t = createTempRepo();
    const repo = t;
    const a = join(repo.dir, "a");
    const b = join(repo.dir, "b");
    repo.git(["worktree", "add", "-q", "-b", "ba", a]);
    repo.git(["worktree", "add", "-q", "-b", "bb", b]);
    const onA = repo.commit({ "x.txt": "a\n" }, "on a", a);
    const onB = repo.commit({ "x.txt": "bbbb\n" }, "on b", b);
    expect(readHead(a)).toBe(onA);
    writeFileSync(join(a, ".git"), `gitdir: ${repo.git(["rev-parse", "--absolute-git-dir"], b)}\n`);
    expect(readHead(a)).toBe(onB);
  });

  it("tells a moved branch from the stamps it remembers, however the ref was written", async () => {
    t = createTempRepo();
    const repo = t;
    const place = join(repo.dir, "wt");
    repo.git(["worktree", "add", "-q", "-b", "work", place]);
    const first = repo.commit({ "a.txt": "one\n" }, "one", place);
    await settle();
    expect(readHead(place)).toBe(first);
    expect(readHead(place)).toBe(first);
    // Rewritten in place by something other than git: same file, same size, a new time.
    const second = repo.commit({ "a.txt": "two\n" }, "two", place);
    repo.git(["update-ref", "refs/heads/work", first]);
    await settle();
    expect(readHead(place)).toBe(first);
    const ref = join(repo.repo, ".git", "refs", "heads", "work");
    writeFileSync(ref, `${second}\n`);
    expect(readHead(place)).toBe(second);
    await settle();
    expect(readHead(place)).toBe(second);
    writeFileSync(ref, `${first}\n`);
    expect(readHead(place)).toBe(first);
    expect(readFileSync(ref, "utf8").trim()).toBe(first);
  });

  it("agrees with `git rev-parse HEAD` after any sequence of commits, resets, switches and packs", async () => {
    t = createTempRepo();
    const repo = t;
    const place = join(repo.dir, "wt");
    repo.git(["worktree", "add", "-q", "-b", "w0", place]);
    repo.git(["branch", "w1"], place);
    let n = 0;
    const op = fc.constantFrom("commit", "reset", "switch", "pack", "detach", "settle");
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 8 }), async (ops) => {
        for (const o of ops) {
          if (o === "commit") repo.commit({ "f.txt": `${n++}\n` }, `c${n}`, place);
          else if (o === "reset") {
            if (Number(repo.git(["rev-list", "--count", "HEAD"], place)) > 1)
              repo.git(["reset", "-q", "--soft", "HEAD~1"], place);
          } else if (o === "switch") {
            const on = repo.git(["rev-parse", "--abbrev-ref", "HEAD"], place);
            repo.git(["switch", "-q", "--discard-changes", on === "w0" ? "w1" : "w0"], place);
          } else if (o === "pack") repo.git(["pack-refs", "--all", "--prune"], place);
          else if (o === "detach") repo.git(["switch", "-q", "--detach", "HEAD"], place);
          else await settle();
          expect(readHead(place)).toBe(repo.git(["rev-parse", "HEAD"], place));
        }
        // Back on a branch for the next run, whatever this one ended on.
        repo.git(["switch", "-q", "--discard-changes", "w0"], place);
      }),
      { numRuns: 25 },
    );
  });
});

/** Longer than a file stamp stays untrusted after a change (fs-state.ts RACY_NS). */
const settle = () => new Promise((r) => setTimeout(r, 70));
