import {
  type BigIntStats,
  type Dirent,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  statSync,
} from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";

/**
 * Reading what git would tell us straight from the files, so a stage that changed nothing costs
 * no git process (issue 10). Every reader returns null whenever the layout is anything it does
 * not fully understand (reftable, an unborn branch, a symlinked ref, a folder that is not the
 * worktree's top level); the caller then asks git itself.
 */

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;

function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/**
 * The git folder of a worktree top level (`.git` folder or `gitdir:` file); null otherwise.
 * Remembered per top level with the `.git` entry's inode, size and change time, so asking again
 * (a stage asks three times) costs one lstat instead of reading the file; a worktree removed and
 * made again at the same place has a new `.git` entry and is read afresh.
 */
const gitDirs = new Map<string, { stamp: string; dir: string }>();

function gitDirOf(top: string): string | null {
  const dotGit = join(top, ".git");
  let stamp: string;
  try {
    const s = lstatSync(dotGit, { throwIfNoEntry: false });
    if (!s) return null;
    if (s.isDirectory()) return dotGit;
    if (!s.isFile()) return null;
    stamp = `${s.ino}:${s.size}:${s.ctimeMs}:${s.mtimeMs}`;
  } catch {
    return null;
  }
  const known = gitDirs.get(top);
  if (known?.stamp === stamp) return known.dir;
  const text = readText(dotGit);
  const m = text === null ? null : /^gitdir: (.+)$/m.exec(text);
  if (!m?.[1]) return null;
  const dir = m[1].trim();
  const abs = isAbsolute(dir) ? dir : resolve(top, dir);
  if (gitDirs.size > 1000) gitDirs.clear();
  gitDirs.set(top, { stamp, dir: abs });
  return abs;
}

/**
 * The shared git folder: a linked worktree's `commondir`, else the git folder itself. Remembered
 * per git folder (git writes `commondir` once, when it makes the worktree): a stage asks for
 * HEAD several times.
 */
const commonDirs = new Map<string, string>();

function commonDirOf(gitDir: string): string {
  const known = commonDirs.get(gitDir);
  if (known !== undefined) return known;
  const common = readText(join(gitDir, "commondir"))?.trim();
  const dir = !common ? gitDir : isAbsolute(common) ? common : resolve(gitDir, common);
  if (commonDirs.size > 1000) commonDirs.clear();
  commonDirs.set(gitDir, dir);
  return dir;
}

function refFromPacked(commonDir: string, ref: string): string | null {
  const packed = readText(join(commonDir, "packed-refs"));
  if (packed === null) return null;
  for (const line of packed.split("\n")) {
    const space = line.indexOf(" ");
    if (space === 40 || space === 64) {
      if (line.slice(space + 1).trim() === ref) return line.slice(0, space);
    }
  }
  return null;
}

/** Variables that move or bound git's search for the repository: with any of them, git answers. */
const DISCOVERY_ENV = [
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_CEILING_DIRECTORIES",
  "GIT_DISCOVERY_ACROSS_FILESYSTEM",
  "GIT_COMMON_DIR",
];

/**
 * The worktree top level containing `cwd`, as `git rev-parse --show-toplevel` prints it, found by
 * walking up to the nearest `.git` (a folder holding HEAD, or a `gitdir:` file whose folder holds
 * HEAD). Null means "ask git": a variable that moves discovery (DISCOVERY_ENV), a `.git` or top
 * level owned by another user (git's safe.directory check), a `cwd` inside a `.git` folder, no
 * repository at all (git words that error), or anything this does not fully understand.
 */
export function worktreeTop(cwd: string, env: NodeJS.ProcessEnv): string | null {
  if (DISCOVERY_ENV.some((name) => env[name] !== undefined)) return null;
  const uid = process.getuid?.();
  if (uid === undefined) return null;
  let dir: string;
  try {
    dir = realpathSync(cwd);
  } catch {
    return null;
  }
  if (dir.split(sep).includes(".git")) return null;
  try {
    for (;;) {
      const dotGit = join(dir, ".git");
      const s = lstatSync(dotGit, { throwIfNoEntry: false });
      if (s) {
        if (s.uid !== uid || statSync(dir).uid !== uid) return null;
        const gitDir = s.isDirectory() ? dotGit : s.isFile() ? gitDirOf(dir) : null;
        return gitDir !== null && existsSync(join(gitDir, "HEAD")) ? dir : null;
      }
      const parent = dirname(dir);
      if (parent === dir) return null;
      dir = parent;
    }
  } catch {
    return null;
  }
}

/** The index file's size and times: staging anything (`git add`, `git rm --cached`) changes it. */
export function indexStamp(top: string): string | null {
  const gitDir = gitDirOf(top);
  if (gitDir === null) return null;
  const s = statSync(join(gitDir, "index"), { bigint: true, throwIfNoEntry: false });
  return s ? stampOf(s) : "none";
}

/**
 * The stamp of the repository's own ignore rules (`info/exclude` in its shared git folder); null
 * when the layout is not understood.
 */
export function excludeStamp(top: string): string | null {
  const gitDir = gitDirOf(top);
  if (gitDir === null) return null;
  const s = statSync(join(commonDirOf(gitDir), "info", "exclude"), { bigint: true, throwIfNoEntry: false });
  return s ? stampOf(s) : "none";
}

/** A file's size, times and inode: a file written again, in place or replaced, has another one. */
function stampOf(s: BigIntStats): string {
  return `${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.ino}`;
}

/**
 * A file's identity and times, or "none" when it is missing; null when the file changed too
 * recently to be told apart from a change to come (below).
 */
function settledStamp(path: string, readAt: bigint): string | null {
  let s: BigIntStats | undefined;
  try {
    s = statSync(path, { bigint: true, throwIfNoEntry: false });
  } catch {
    return null;
  }
  if (!s) return "none";
  // File times come from a clock that advances a tick (up to 10 ms) at a time: a file changed in
  // place within the tick it was read in can keep its size and times. Like git's "racily clean"
  // entries, one changed that recently is never trusted from its stamp.
  const recent = readAt - RACY_NS;
  if (s.mtimeNs >= recent || s.ctimeNs >= recent) return null;
  return stampOf(s);
}

/** How recent a change makes a stamp untrustworthy: several ticks of the coarsest file clock. */
const RACY_NS = 50_000_000n;

/**
 * HEAD as last read, per git folder, with the stamps of the files it was read from (HEAD, the
 * branch's loose ref, packed-refs when there is no loose one): while none has changed, HEAD is
 * what it was, told by two or three stats instead of reading two files (a no-op stage asks
 * twice; issue 10).
 */
const heads = new Map<string, { files: string[]; stamps: string[]; sha: string }>();

/** HEAD's commit sha for the worktree whose top level is `top`, or null to ask git. */
export function readHead(top: string): string | null {
  const gitDir = gitDirOf(top);
  if (gitDir === null) return null;
  const now = BigInt(Date.now()) * 1_000_000n;
  const known = heads.get(gitDir);
  if (known !== undefined) {
    if (known.files.every((f, i) => settledStamp(f, now) === known.stamps[i])) return known.sha;
    heads.delete(gitDir);
  }
  const read = readHeadFiles(gitDir, now);
  if (read.sha !== null && read.stamps !== null) {
    if (heads.size > 1000) heads.clear();
    heads.set(gitDir, { files: read.files, stamps: read.stamps, sha: read.sha });
  }
  return read.sha;
}

/**
 * HEAD's sha read from the files, each stamped before it is read (a change after its stamp shows
 * as another stamp next time). `stamps` is null when the answer must not be remembered: a file
 * changed too recently, or HEAD names something other than a branch.
 */
function readHeadFiles(
  gitDir: string,
  now: bigint,
): { sha: string | null; files: string[]; stamps: string[] | null } {
  const files: string[] = [];
  let stamps: string[] | null = [];
  const stamp = (path: string): void => {
    files.push(path);
    const s = stamps === null ? null : settledStamp(path, now);
    if (s === null) stamps = null;
    else stamps?.push(s);
  };
  const none = { sha: null, files, stamps: null };
  const headPath = join(gitDir, "HEAD");
  stamp(headPath);
  const head = readText(headPath)?.trim();
  if (!head) return none;
  if (SHA.test(head)) return { sha: head, files, stamps };
  const m = /^ref: (refs\/[^\s]+)$/.exec(head);
  if (!m?.[1]) return none;
  const ref = m[1];
  const commonDir = commonDirOf(gitDir);
  const branch = ref.startsWith("refs/heads/");
  // Branches live in the common folder; per-worktree refs (refs/bisect, refs/worktree) in the own.
  for (const dir of branch ? [commonDir] : [gitDir, commonDir]) {
    const path = join(dir, ref);
    if (branch) stamp(path);
    const loose = readText(path)?.trim();
    if (loose !== undefined && SHA.test(loose)) return { sha: loose, files, stamps: branch ? stamps : null };
  }
  if (branch) stamp(join(commonDir, "packed-refs"));
  const packed = refFromPacked(commonDir, ref);
  return packed !== null && SHA.test(packed) ? { sha: packed, files, stamps: branch ? stamps : null } : none;
}

/** Above this many entries a walk costs more than one `git status`: give up and let git answer. */
export const WALK_LIMIT = 4000;

/**
 * At most this many bytes of recently changed files are read by one fingerprint (below); a walk
 * that would read more gives up and lets git answer, as git itself would read them.
 */
const RACY_READ_LIMIT = 8 << 20;

/** The stamp of a file that changed too recently to be told by its times starts with this. */
const RACY = "racy:";

/** What a walk of the worktree found: its fingerprint, or why there is none. */
export type Walk = { files: Map<string, string> } | { files: null; tooBig: boolean };

export interface WalkOptions {
  /** Most entries to stamp (default WALK_LIMIT). */
  limit?: number;
  /** When the walk starts, in ns since the epoch (default now). */
  readAt?: bigint;
  /**
   * Paths (relative, `/`-separated) to leave out, folders with everything in them: what git
   * ignores and does not track, which no `git add -A` would take.
   */
  skip?: ReadonlySet<string>;
}

/**
 * A fingerprint of everything in the worktree except `.git` and `skip`: each path with its size,
 * mtime, ctime, inode and mode. Editing, adding, deleting or renaming any file changes it. None
 * when the worktree holds more than `limit` entries (`tooBig`) or cannot be read.
 *
 * A file whose mtime or ctime lies within RACY_NS of `readAt` is stamped by its content instead:
 * on a file system whose times advance a tick at a time, an agent that rewrites it in place within
 * that tick, keeping its size, leaves every time as it was (git's "racily clean" entries, which git
 * compares by content too).
 */
export function worktreeFingerprint(top: string, opts: WalkOptions = {}): Walk {
  const limit = opts.limit ?? WALK_LIMIT;
  const readAt = opts.readAt ?? BigInt(Date.now()) * 1_000_000n;
  const skip = opts.skip !== undefined && opts.skip.size > 0 ? opts.skip : null;
  const out = new Map<string, string>();
  const pending = [""];
  const racy = { since: readAt - RACY_NS, budget: RACY_READ_LIMIT };
  try {
    for (let rel = pending.pop(); rel !== undefined; rel = pending.pop()) {
      const entries: Dirent[] = readdirSync(join(top, rel), { withFileTypes: true });
      for (const e of entries) {
        if (rel === "" && e.name === ".git") continue;
        const path = rel === "" ? e.name : `${rel}/${e.name}`;
        if (skip?.has(path)) continue;
        if (out.size >= limit) return { files: null, tooBig: true };
        if (e.isDirectory()) {
          out.set(path, "dir");
          pending.push(path);
          continue;
        }
        const full = join(top, path);
        const s = lstatSync(full, { bigint: true, throwIfNoEntry: false });
        if (!s) continue;
        if (s.mtimeNs < racy.since && s.ctimeNs < racy.since) {
          out.set(path, `${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.ino}:${s.mode}`);
          continue;
        }
        racy.budget -= Number(s.size);
        if (racy.budget < 0) return { files: null, tooBig: false };
        out.set(path, contentStamp(full, s));
      }
    }
  } catch {
    return { files: null, tooBig: false };
  }
  return { files: out };
}

let unreadable = 0;

/**
 * A file's mode and content (a hash of its bytes, a symlink's target): what git would compare.
 * Anything else gets a stamp equal to no other, so it always counts as changed.
 */
function contentStamp(full: string, s: BigIntStats): string {
  if (s.isSymbolicLink()) return `${RACY}${s.mode}:link:${readlinkSync(full)}`;
  if (!s.isFile()) return `${RACY}unreadable:${++unreadable}`;
  return `${RACY}${s.mode}:${contentHash(readFileSync(full))}`;
}

/**
 * A 64-bit hash of a file's bytes (two FNV-style lanes) and their count: tells one content of a
 * file from another it had a moment before. Not `node:crypto`: loading it would load the stream
 * modules into every command that only looks at a worktree (`status` among them).
 */
function contentHash(bytes: Uint8Array): string {
  let a = 0x811c9dc5;
  let b = 0x9e3779b9;
  for (let i = 0; i < bytes.length; i++) {
    const x = bytes[i] as number;
    a = Math.imul(a ^ x, 0x01000193);
    b = Math.imul(b ^ x, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return `${(a >>> 0).toString(16)}.${(b >>> 0).toString(16)}.${bytes.length}`;
}

/** A file's content stamp as it is now; null when it cannot be read. */
function contentStampNow(full: string): string | null {
  try {
    const s = lstatSync(full, { bigint: true, throwIfNoEntry: false });
    return s && Number(s.size) <= RACY_READ_LIMIT ? contentStamp(full, s) : null;
  } catch {
    return null;
  }
}

/** What changed between two fingerprints (compareFingerprints). */
export interface FingerprintChange {
  /** Anything at all. */
  changed: boolean;
  /** A path that was not there before. */
  added: boolean;
  /** A `.gitignore` that changed, came or went: what git ignores may have changed. */
  rules: boolean;
}

const isIgnoreFile = (path: string): boolean => path === ".gitignore" || path.endsWith("/.gitignore");

/**
 * What changed between two fingerprints of the worktree at `top`. A file stamped by its content
 * before and by its times now is compared by its content.
 */
export function compareFingerprints(
  before: Map<string, string>,
  after: Map<string, string>,
  top: string,
): FingerprintChange {
  const same = (path: string, was: string | undefined, sig: string): boolean =>
    was === sig ||
    (was?.startsWith(RACY) === true &&
      sig !== "dir" &&
      !sig.startsWith(RACY) &&
      contentStampNow(join(top, path)) === was);
  let added = false;
  let changed = before.size !== after.size;
  for (const [path, sig] of after) {
    const was = before.get(path);
    if (was === undefined) {
      added = true;
      changed = true;
      break;
    }
    if (!changed && !same(path, was, sig)) changed = true;
  }
  let rules = false;
  if (changed) {
    for (const [path, sig] of after)
      if (isIgnoreFile(path) && !same(path, before.get(path), sig)) rules = true;
    for (const path of before.keys()) if (isIgnoreFile(path) && !after.has(path)) rules = true;
  }
  return { changed, added, rules };
}
