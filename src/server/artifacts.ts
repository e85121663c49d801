import { open, readdir, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { isReviewArtifactName, listReviewArtifacts, safeName } from "../engine/artifacts.js";
import { FixpointError } from "../errors.js";
import type { ArtifactChunk, ArtifactInfo, ArtifactList } from "./api.js";

/**
 * A task's transcripts (`.fixpoint/transcripts/<task>/*`) and review artifacts
 * (`.fixpoint/reviews/<task>-r<run>-review-<cycle>.md`), listed by name and read in chunks so a 10 MB
 * transcript is never loaded whole. A name is joined to its folder only when it cannot be a path
 * (safeName) or matches a review of the task; any other is looked up in the folder's listing, so a
 * crafted name cannot reach outside these folders. The reviews are those the store names
 * (`storedReviews`, restored here first) and older versions' (listReviewArtifacts), never a listing
 * of the folder every task's reviews share. The reviews come first, then the
 * transcripts by name; only the first `limit` are measured (a stat each: 230 ms at 20,000), and
 * `total` counts them all.
 */
export async function listArtifacts(
  dir: string,
  taskId: string,
  storedReviews: readonly string[],
  limit = Number.POSITIVE_INFINITY,
): Promise<ArtifactList> {
  const transcripts = join(dir, "transcripts", taskId);
  // Each run's (`<task>-r<run>-review-<cycle>.md`) and older versions' (`<task>-review-<cycle>.md`).
  const all = [
    ...listReviewArtifacts(join(dir, "reviews"), taskId, storedReviews).map((r) => ({
      path: r.path,
      kind: "review" as const,
    })),
    ...(await readdir(transcripts).catch(() => [] as string[]))
      .sort()
      .map((f) => ({ path: join(transcripts, f), kind: "transcript" as const })),
  ];
  const artifacts: ArtifactInfo[] = [];
  for (const a of all.slice(0, limit)) {
    artifacts.push({ name: basename(a.path), kind: a.kind, bytes: (await stat(a.path)).size });
  }
  return { artifacts, total: all.length };
}

export async function readArtifactChunk(
  dir: string,
  taskId: string,
  name: string,
  offset: number,
  length: number,
): Promise<ArtifactChunk> {
  const info = await artifactNamed(dir, taskId, name);
  if (!info) throw new FixpointError("not_found", `${taskId} has no artifact \`${name}\``);
  const path = info.path;
  const start = Math.min(Math.max(0, Math.floor(offset)), info.bytes);
  const handle = await open(path, "r");
  try {
    const buf = Buffer.alloc(Math.min(length, info.bytes - start));
    const { bytesRead } = await handle.read(buf, 0, buf.length, start);
    const end = start + bytesRead >= info.bytes ? bytesRead : completeUtf8(buf, bytesRead);
    const next = start + end >= info.bytes ? null : start + end;
    return { text: buf.subarray(0, end).toString("utf8"), offset: start, next, bytes: info.bytes };
  } finally {
    await handle.close();
  }
}

/**
 * The artifact `name` of the task, found without listing every task's reviews for each chunk: a
 * review's name must be one a review of this task has, a transcript's a file in its folder.
 */
async function artifactNamed(
  dir: string,
  taskId: string,
  name: string,
): Promise<{ path: string; bytes: number } | null> {
  if (isReviewArtifactName(taskId, name)) {
    const path = join(dir, "reviews", name);
    const found = await stat(path).catch(() => null);
    return found?.isFile() ? { path, bytes: found.size } : null;
  }
  const transcripts = join(dir, "transcripts", taskId);
  // A name that cannot be a path is looked up alone: a chunk of a long run's transcript does not
  // list every transcript of the run (20,000 at 20,000 stages) again.
  if (safeName(name)) {
    const path = join(transcripts, name);
    const found = await stat(path).catch(() => null);
    return found?.isFile() ? { path, bytes: found.size } : null;
  }
  if (!(await readdir(transcripts).catch(() => [] as string[])).includes(name)) return null;
  const path = join(transcripts, name);
  return { path, bytes: (await stat(path)).size };
}

/** Length of `buf[0, n)` without a trailing, incomplete UTF-8 sequence (the next chunk starts with it). */
export function completeUtf8(buf: Uint8Array, n: number): number {
  let i = n - 1;
  let back = 0;
  while (i >= 0 && back < 3 && ((buf[i] ?? 0) & 0xc0) === 0x80) {
    i--;
    back++;
  }
  if (i < 0) return n;
  const lead = buf[i] ?? 0;
  const need = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return n - i >= need ? n : i;
}
