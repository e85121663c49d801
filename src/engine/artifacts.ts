import { readdirSync, statSync } from "node:fs";
import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import type { ArtifactInput, ArtifactKind, Lease, Store, StoreOps } from "../domain/store.js";
import type { ReviewOutput, ReviewVerdict } from "../domain/types.js";
import { redactSecrets } from "../util/redact.js";

/**
 * `.fixpoint/reviews/<task>-r<run>-review-<cycle>.md`: every reviewer of that cycle of that run,
 * with verdicts and findings. The run id keeps a second run (retry, resume) from overwriting the
 * first's artifacts. Without a run id: the path older versions wrote (still read by `show`).
 */
export function reviewArtifactPath(dir: string, taskId: string, cycle: number, runId?: number): string {
  return join(
    dir,
    runId === undefined ? `${taskId}-review-${cycle}.md` : `${taskId}-r${runId}-review-${cycle}.md`,
  );
}

export interface ReviewArtifact {
  path: string;
  /** Null for artifacts written before run ids were in the name. */
  runId: number | null;
  cycle: number;
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

function reviewNamePattern(taskId: string): RegExp {
  return new RegExp(`^${escapeRegExp(taskId)}(?:-r(\\d+))?-review-(\\d+)\\.md$`);
}

/** Whether `name` is one of the names a review artifact of `taskId` has (never a path). */
export function isReviewArtifactName(taskId: string, name: string): boolean {
  return reviewNamePattern(taskId).test(name);
}

/**
 * A task's review artifacts in `dir`, old-style first, then by run and cycle: those the store names
 * (`stored`: what restoreArtifacts returns, every one on disk here) and the ones older versions
 * wrote without a run id, found by asking for cycle 0, 1, … by name. `dir` itself is never listed:
 * it holds every task's reviews, and listing 300,000 of them took half a second for one task.
 */
export function listReviewArtifacts(
  dir: string,
  taskId: string,
  stored: readonly string[],
): ReviewArtifact[] {
  const re = reviewNamePattern(taskId);
  const names = new Set(stored);
  for (let cycle = 0, misses = 0; misses < LEGACY_GAP; cycle++) {
    const path = reviewArtifactPath(dir, taskId, cycle);
    if (statSync(path, { throwIfNoEntry: false })?.isFile()) {
      names.add(basename(path));
      misses = 0;
    } else misses++;
  }
  const out: ReviewArtifact[] = [];
  for (const name of names) {
    const m = re.exec(name);
    if (!m) continue;
    out.push({ path: join(dir, name), runId: m[1] === undefined ? null : Number(m[1]), cycle: Number(m[2]) });
  }
  return out.sort((a, b) => (a.runId ?? -1) - (b.runId ?? -1) || a.cycle - b.cycle);
}

/** Old-style review files are looked for up to this many missing cycles in a row. */
const LEGACY_GAP = 2;

/** One reviewer's part of a cycle's review file. */
export interface ReviewSection {
  stageId: string;
  output: ReviewOutput;
  verdict: ReviewVerdict | null;
}

/**
 * Adds (or replaces, when a stage ran again after a crash) reviewers' sections, all in one write.
 * Sections are kept in the order they were first written — the executor writes them in
 * declaration order. Written to a temporary name and renamed, so a reader never sees half a file.
 * A parallel stage's reviewers go in together: one write per reviewer rewrote the sections before
 * it each time, the square of the reviewers in bytes.
 */
export async function writeReviewSections(
  dir: string,
  taskId: string,
  cycle: number,
  sections: readonly ReviewSection[],
  runId?: number,
): Promise<string> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const path = reviewArtifactPath(dir, taskId, cycle, runId);
  const title = `# Review of ${taskId}${runId === undefined ? "" : `, run ${runId}`}, cycle ${cycle}\n`;
  const existing = await readFile(path, "utf8").catch(() => title);
  const fresh = new Map(sections.map((s) => [s.stageId, sectionText(s)] as const));
  // The file's own sections, each replaced in place by its fresh text; the rest appended.
  const parts: string[] = [];
  let from = 0;
  for (const { stageId, start, end } of sectionsIn(existing)) {
    const text = fresh.get(stageId);
    if (text === undefined) continue;
    parts.push(existing.slice(from, start), text);
    fresh.delete(stageId);
    from = end;
  }
  parts.push(existing.slice(from));
  for (const text of fresh.values()) parts.push("\n", text);
  const tmp = `${path}.${process.pid}.tmp`;
  await writeFile(tmp, redactSecrets(parts.join("")), { mode: 0o600 });
  await rename(tmp, path);
  return path;
}

function sectionText({ stageId, output, verdict }: ReviewSection): string {
  return `<!-- stage:${stageId} -->\n${renderSection(stageId, output, verdict)}<!-- /stage:${stageId} -->\n`;
}

/** A review file's sections, in order: each from its opening marker to past its closing one. */
function sectionsIn(text: string): { stageId: string; start: number; end: number }[] {
  const open = "<!-- stage:";
  const out: { stageId: string; start: number; end: number }[] = [];
  for (let start = text.indexOf(open); start !== -1; start = text.indexOf(open, start + 1)) {
    const idEnd = text.indexOf(" -->\n", start + open.length);
    if (idEnd === -1) break;
    const stageId = text.slice(start + open.length, idEnd);
    const close = `<!-- /stage:${stageId} -->\n`;
    const closeAt = text.indexOf(close, idEnd);
    if (closeAt === -1) continue;
    out.push({ stageId, start, end: closeAt + close.length });
    start = closeAt + close.length - 1;
  }
  return out;
}

function renderSection(stageId: string, output: ReviewOutput, verdict: ReviewVerdict | null): string {
  const lines = [
    `## ${stageId}`,
    "",
    `**Verdict: ${verdict ?? output.verdict}**`,
    "",
    output.summary.trim(),
    "",
  ];
  if (output.findings.length) {
    lines.push("### Findings", "");
    for (const f of output.findings) {
      const where = f.file
        ? ` \`${f.file}${f.lineStart ? `:${f.lineStart}${f.lineEnd && f.lineEnd !== f.lineStart ? `-${f.lineEnd}` : ""}` : ""}\``
        : "";
      lines.push(`- **${f.severity}** [${f.category}] ${f.title}${where}`);
      if (f.body) lines.push(`  ${f.body.replace(/\n/g, "\n  ")}`);
      if (f.suggestedFix) lines.push(`  Suggested fix: ${f.suggestedFix.replace(/\n/g, "\n  ")}`);
    }
    lines.push("");
  }
  if (output.prior.length) {
    lines.push("### Earlier findings", "");
    for (const p of output.prior) lines.push(`- ${p.id}: ${p.status}${p.note ? ` — ${p.note}` : ""}`);
    lines.push("");
  }
  return `${lines.join("\n")}\n`;
}

/**
 * Copies a file the run wrote (a transcript, a review file) into the store, so `show` and `logs`
 * find it on any machine. A file the backend did not write is skipped; the store caps, compresses
 * and (through the redacting wrapper) redacts it. `fence`: the run's lease.
 */
export async function storeArtifactFile(
  store: Pick<Store, "transaction">,
  taskId: string,
  kind: ArtifactKind,
  path: string,
  now: number,
  fence?: Lease,
): Promise<void> {
  const artifact = await readArtifactFile(taskId, kind, path);
  if (artifact === null) return;
  // Fenced like every write of a run: a worker whose lease moved on stores nothing.
  await store.transaction((tx) => tx.saveArtifact(artifact, now), { ...(fence ? { fence } : {}) });
}

/** A file the run wrote, as the artifact to store; null when the backend did not write it. */
export async function readArtifactFile(
  taskId: string,
  kind: ArtifactKind,
  path: string,
): Promise<ArtifactInput | null> {
  // Most stages' backends write no transcript: one stat answers that without a round trip
  // through the thread pool (issue 10: a no-op stage's cost).
  if (!statSync(path, { throwIfNoEntry: false })) return null;
  try {
    return { taskId, kind, name: basename(path), text: await readFile(path, "utf8") };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

/** A stored name fit to be a file name in one folder (never a path, never hidden). */
export function safeName(name: string): boolean {
  return /^[A-Za-z0-9][A-Za-z0-9._#@+=,-]*$/.test(name) && !name.includes("..");
}

/**
 * Whether a name is absent from `dir`. A task's transcripts have a folder of their own, listed
 * once (a stat per name cost 128 ms at 20,000 stages); the review folder holds every task's
 * files, so each name is looked up on its own (listing it costs 70 ms at 100,000 files).
 */
function absentFrom(dir: string, kind: ArtifactKind): (name: string) => boolean {
  if (kind === "transcript") {
    const present = new Set(readdirIfAny(dir));
    return (name) => !present.has(name);
  }
  return (name) => !statSync(join(dir, name), { throwIfNoEntry: false });
}

function readdirIfAny(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw e;
  }
}

/** Missing artifacts read from the store at a time: their text is up to ARTIFACT_MAX_BYTES each. */
const RESTORE_BATCH = 64;

/**
 * Writes the task's stored artifacts of `kind` that `dir` lacks (another machine ran those
 * stages) into `dir`, so readers of local files see them too. Files already there are kept, and
 * their text is never read from the store: only the names are, so a task page or `logs` of a
 * long run on this machine costs a listing of its folder, not all of their text. Returns the
 * stored names fit to be file names, each of them now in `dir`.
 */
export async function restoreArtifacts(
  store: Pick<StoreOps, "listArtifacts" | "artifactNames">,
  dir: string,
  taskId: string,
  kind: ArtifactKind,
): Promise<string[]> {
  const names = (await store.artifactNames(taskId, kind)).filter(safeName);
  if (names.length === 0) return names;
  const missing = names.filter(absentFrom(dir, kind));
  if (missing.length === 0) return names;
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (let i = 0; i < missing.length; i += RESTORE_BATCH) {
    for (const a of await store.listArtifacts(taskId, kind, missing.slice(i, i + RESTORE_BATCH))) {
      const path = join(dir, a.name);
      const tmp = `${path}.${process.pid}.tmp`;
      await writeFile(tmp, a.text, { mode: 0o600 });
      await rename(tmp, path);
    }
  }
  return names;
}
