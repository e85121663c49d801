import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { Git } from "../domain/git.js";
import { compareFingerprints, worktreeFingerprint } from "./fs-state.js";
import { createGit } from "./git-cli.js";
import { createTempRepo, ISOLATED_GIT_ENV, loggingGit, type TempRepo } from "./temp-repo.js";

/**
 * File systems whose times advance a tick at a time (ext4 before Linux 6.13 among them): a file
 * rewritten in place within the tick keeps its size, inode and times. This machine's kernel stamps
 * finer, so `lstat` is wrapped to give the files of `frozen` the one time `frozenAt` instead.
 */
const clock = vi.hoisted(() => ({ frozen: new Set<string>(), frozenAt: 0n, reads: [] as string[] }));
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const lstatSync = ((path: string, opts?: object) => {
    const s = fs.lstatSync(path, opts as never) as unknown as Record<string, unknown> | undefined;
    if (s && clock.frozen.has(String(path))) {
      s.mtimeNs = clock.frozenAt;
      s.ctimeNs = clock.frozenAt;
    }
    return s;
  }) as typeof fs.lstatSync;
  // Reads of the files whose times are frozen: how often a file's content was looked at.
  const readFileSync = ((path: string, ...rest: unknown[]) => {
    if (clock.frozen.has(String(path))) clock.reads.push(String(path));
    return (fs.readFileSync as (...a: unknown[]) => unknown)(path, ...rest);
  }) as typeof fs.readFileSync;
  return { ...fs, default: { ...fs, lstatSync, readFileSync }, lstatSync, readFileSync };
});

const MS = 1_000_000n;

describe("worktreeFingerprint: files changed within the file system's tick", () => {
  let dir: string | undefined;
  afterEach(() => {
    clock.frozen.clear();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it("tells a rewrite that kept the size and every time from no change, read soon after or long after", () => {
    dir = mkdtempSync(join(tmpdir(), "fixpoint-fingerprint-"));
    const top = dir;
    const file = join(top, "a.txt");
    clock.frozen.add(file);
    clock.frozenAt = BigInt(Date.now()) * MS;
    // Each case: the two contents (same length), and when each fingerprint is read after the
    // frozen time (ms: under 50 is "within the tick's reach", the file is read; later, its stamp).
    const content = fc.string({ unit: fc.constantFrom("a", "b", "\n"), minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(
        content.chain((c) =>
          fc.tuple(
            fc.constant(c),
            fc.string({ unit: fc.constantFrom("a", "b", "\n"), minLength: c.length, maxLength: c.length }),
          ),
        ),
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: 0, max: 200 }),
        ([first, second], readFirst, readLater) => {
          writeFileSync(file, first);
          const before = worktreeFingerprint(top, { readAt: clock.frozenAt + BigInt(readFirst) * MS }).files;
          writeFileSync(file, second);
          const after = worktreeFingerprint(top, {
            readAt: clock.frozenAt + BigInt(readFirst + readLater) * MS,
          }).files;
          expect(before).not.toBeNull();
          expect(after).not.toBeNull();
          if (!before || !after) return;
          const seen = compareFingerprints(before, after, top);
          // A change read only from a stamp of a file already settled when first read cannot be
          // told; every other change is seen, and no change is never reported as one.
          const settledBoth = readFirst >= 50;
          if (first === second) expect(seen.changed).toBe(false);
          else if (!settledBoth) expect(seen.changed).toBe(true);
          expect(seen.added).toBe(false);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("gives up (null) when the recently changed files hold more than it reads", () => {
    dir = mkdtempSync(join(tmpdir(), "fixpoint-fingerprint-"));
    writeFileSync(join(dir, "big.bin"), Buffer.alloc(9 << 20, 1));
    // Read as it is written: a loaded machine can take longer than the racy window to get here.
    const written = statSync(join(dir, "big.bin"), { bigint: true }).mtimeNs;
    expect(worktreeFingerprint(dir, { readAt: written })).toEqual({ files: null, tooBig: false });
    expect(worktreeFingerprint(dir, { readAt: BigInt(Date.now() + 60_000) * MS }).files).not.toBeNull();
  });
});

describe("commitAll after an agent rewrote a file within the tick", () => {
  let t: TempRepo | undefined;
  afterEach(() => {
    clock.frozen.clear();
    t?.cleanup();
  });

  it("commits the change, and runs no git process when the rewrite changed nothing", async () => {
    t = createTempRepo();
    const repo = t;
    const wrapper = loggingGit(repo.dir);
    const git: Git = createGit({ gitPath: wrapper.path, env: ISOLATED_GIT_ENV });
    const file = join(repo.repo, "a.txt");
    clock.frozen.add(file);
    clock.frozenAt = BigInt(Date.now()) * MS;

    repo.write("a.txt", "one\n");
    expect(await git.commitAll(repo.repo, "first")).not.toBeNull();
    wrapper.spawned();

    repo.write("a.txt", "two\n");
    const second = await git.commitAll(repo.repo, "same size, same times");
    expect(second).toBe(repo.git(["rev-parse", "HEAD"]));
    expect(repo.git(["show", "HEAD:a.txt"])).toBe("two");
    expect(wrapper.spawned()).toEqual(["commit"]);

    repo.write("a.txt", "two\n");
    expect(await git.commitAll(repo.repo, "the same bytes again")).toBeNull();
    expect(wrapper.spawned()).toEqual([]);
  });

  it("reads a file changed just before a look again only until its times have settled", async () => {
    t = createTempRepo();
    const repo = t;
    const git: Git = createGit({ env: ISOLATED_GIT_ENV });
    const files = ["a.txt", "b.txt"].map((name) => join(repo.repo, name));
    for (const f of files) clock.frozen.add(f);
    clock.frozenAt = BigInt(Date.now()) * MS;
    repo.write("a.txt", "one\n");
    repo.write("b.txt", "two\n");
    // Written a moment before the look (a checkout, an agent's last edit): stamped by content.
    expect(await git.commitAll(repo.repo, "first")).not.toBeNull();
    // Settled since: the next look compares the contents once more, then keeps the settled stamps.
    clock.frozenAt -= 1000n * MS;
    clock.reads.length = 0;
    expect(await git.commitAll(repo.repo, "nothing")).toBeNull();
    expect(clock.reads.sort()).toEqual(files);
    clock.reads.length = 0;
    for (let i = 0; i < 3; i++) expect(await git.commitAll(repo.repo, "still nothing")).toBeNull();
    expect(clock.reads).toEqual([]);
    // And a change made after that is still seen.
    clock.frozen.clear();
    repo.write("b.txt", "three\n");
    expect(await git.commitAll(repo.repo, "changed")).not.toBeNull();
    expect(repo.git(["show", "HEAD:b.txt"])).toBe("three");
  });
});
