import { createHash } from "node:crypto";
import { basename, join, resolve } from "node:path";

/** Longest slug taken from a task title; branch names stay readable in `git branch` and PR lists. */
const MAX_SLUG = 40;

/**
 * Lowercase ASCII words joined by `-`, at most `max` characters, cut at a word boundary when one
 * is near. Accents are folded (`Café` → `cafe`); scripts with no ASCII form drop out. The result
 * contains only `[a-z0-9-]`, never starts or ends with `-`, so it is safe in any git ref component.
 */
export function slugify(text: string, max = MAX_SLUG): string {
  // ASCII has nothing to fold, and skipping the fold skips loading Unicode's tables (4-9 ms of
  // every `fixpoint work`, the first time a process makes a branch name).
  const folded = !/[^\x20-\x7e\t\n\r]/.test(text) ? text : text.normalize("NFKD").replace(/\p{M}/gu, "");
  const words = folded
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  if (words.length <= max) return words;
  const cut = words.slice(0, max);
  const lastDash = cut.lastIndexOf("-");
  // Prefer ending on a whole word unless that would throw away most of the slug.
  const trimmed = lastDash >= max / 2 ? cut.slice(0, lastDash) : cut;
  return trimmed.replace(/-+$/, "");
}

/**
 * A task id made safe as one path segment and one ref component. Ids fixpoint generates
 * (`t-12`, `pr-7-cycle-2`) pass through unchanged.
 */
export function safeSegment(id: string, fallback = "task"): string {
  const cleaned = id
    .replace(/[^A-Za-z0-9_-]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64);
  return cleaned.length > 0 ? cleaned : fallback;
}

/** The task's branch (SPEC §11): `fixpoint/<id>-<slug>`, or `fixpoint/<id>` when the title has no ASCII words. */
export function branchName(taskId: string, title: string): string {
  const slug = slugify(title);
  const id = safeSegment(taskId);
  return slug.length > 0 ? `fixpoint/${id}-${slug}` : `fixpoint/${id}`;
}

/**
 * Where a task's worktree lives: `<root>/<repo name>-<hash>/<task id>`. The hash is of the
 * repository's absolute path, so two checkouts both called `api` get separate folders while the
 * name stays recognisable to a person browsing `~/.fixpoint/worktrees`.
 */
export function worktreePath(root: string, repoPath: string, taskId: string): string {
  const repo = resolve(repoPath);
  const hash = createHash("sha256").update(repo).digest("hex").slice(0, 8);
  const name = safeSegment(basename(repo), "repo");
  return join(resolve(root), `${name}-${hash}`, safeSegment(taskId));
}
