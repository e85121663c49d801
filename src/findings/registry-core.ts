import type {
  Finding,
  FindingSource,
  FindingStatus,
  FixAttempt,
  JsonObject,
  NewLearning,
  NewTaskEvent,
  RawFinding,
  Severity,
} from "../domain/types.js";
import { DedupIndex } from "./dedup.js";
import { fingerprint, normalizeFile } from "./fingerprint.js";

export interface RegistryOptions {
  blockingSeverity: Severity;
  now: () => number;
}

export function numericId(id: string): number {
  // Sorting calls this O(n log n) times: no regex on the usual `F-<n>` shape.
  const c = id.charCodeAt(0);
  const prefixed = (c === 70 || c === 102) && id.charCodeAt(1) === 45;
  const n = Number.parseInt(prefixed ? id.slice(2) : id, 10);
  return Number.isNaN(n) ? Number.MAX_SAFE_INTEGER : n;
}

export function byId(a: Finding, b: Finding): number {
  return numericId(a.id) - numericId(b.id);
}

/**
 * Sorted by a numeric key computed once per finding (a comparator that parses ids costs
 * O(n log n) parses); `rank` may add a leading key, e.g. severity. Stable.
 */
export function sortFindings<T extends Finding>(fs: Iterable<T>, rank: (f: T) => number = () => 0): T[] {
  const list = [...fs];
  if (inOrder(list, rank)) return list;
  const keyed = list.map((f) => ({ f, r: rank(f), n: numericId(f.id) }));
  keyed.sort((a, b) => a.r - b.r || a.n - b.n);
  return keyed.map((k) => k.f);
}

/** Already sorted (the store hands findings back in id order): one pass, nothing allocated. */
function inOrder<T extends Finding>(list: readonly T[], rank: (f: T) => number): boolean {
  let r = Number.NEGATIVE_INFINITY;
  let n = Number.NEGATIVE_INFINITY;
  for (const f of list) {
    const fr = rank(f);
    const fn = numericId(f.id);
    if (fr < r || (fr === r && fn < n)) return false;
    r = fr;
    n = fn;
  }
  return true;
}

/**
 * A finding's nested lists (`sources`, `attempts`) are frozen, and the registry replaces them
 * instead of changing them (`addSource`, `addAttempt`). So a shallow copy is a snapshot that later
 * registry changes do not reach: what `forReview` and `forFix` hand out costs one object per
 * finding, not three (at 50,000 findings the deep copies were a third of a cycle).
 */
export function cloneFinding(f: Finding): Finding {
  return { ...f };
}

/** `xs` frozen: a list inside a finding is replaced, never changed in place (see cloneFinding). */
export function frozen<T>(xs: readonly T[]): T[] {
  return Object.freeze(xs) as T[];
}

/** A finding from outside (the store, a caller) as the registry keeps it: its own, lists frozen. */
function adopt(f: Finding): Finding {
  return { ...f, sources: frozen(f.sources.slice()), attempts: frozen(f.attempts.slice()) };
}

/** A finding raised only by gates: reviewers' statuses do not touch it, only gates resolve it. */
export function isGateOnly(f: Finding, gate?: string): boolean {
  if (f.sources.length === 0) return false;
  return f.sources.every((s) => (gate ? s.source === `gate:${gate}` : s.source.startsWith("gate:")));
}

/**
 * The mutable state behind `Registry` and the few primitives every operation uses, so that
 * every status change goes through one place and always yields its event.
 */
export class RegistryCore {
  readonly findings = new Map<string, Finding>();
  /** Review/PR findings only: gate findings are matched by gate name, never by title. */
  readonly index = new DedupIndex<Finding>();
  private nextNumber = 1;
  /**
   * Every id is `F-<n>`: the map then holds findings in id order (loaded sorted, new ids counted
   * up), and a selection in that order needs no sort.
   */
  inIdOrder = true;
  private readonly changed = new Set<string>();
  private events: NewTaskEvent[] = [];
  /** Learnings taught and learning hits since the last drain (written with the stage). */
  private learnings: { add: NewLearning[]; hits: string[] } = { add: [], hits: [] };

  constructor(
    readonly taskId: string,
    readonly opts: RegistryOptions,
    initial: Finding[],
  ) {
    for (const f of sortFindings(initial)) {
      const copy = adopt(f);
      this.findings.set(copy.id, copy);
      if (!isGateOnly(copy)) this.index.add(copy);
      const n = numericId(copy.id);
      if (n !== Number.MAX_SAFE_INTEGER) this.nextNumber = Math.max(this.nextNumber, n + 1);
      else this.inIdOrder = false;
    }
  }

  emit(type: string, data: JsonObject): void {
    this.events.push({ taskId: this.taskId, runId: null, type, data, ts: this.opts.now() });
  }

  touch(f: Finding): void {
    f.updatedAt = this.opts.now();
    this.changed.add(f.id);
  }

  setStatus(f: Finding, to: FindingStatus, cycle: number, reason: string): void {
    const from = f.status;
    if (from === to) return;
    f.status = to;
    this.touch(f);
    this.emit("finding.status", { id: f.id, from, to, cycle, reason });
  }

  /** Back to open after it was claimed fixed or resolved; counts toward NO_PROGRESS. */
  reopen(f: Finding, cycle: number, reason: string): void {
    f.timesReopened += 1;
    this.emit("finding.reopened", {
      id: f.id,
      from: f.status,
      cycle,
      reason,
      timesReopened: f.timesReopened,
    });
    this.setStatus(f, "open", cycle, reason);
  }

  /** One more fix attempt on `f`'s record (a new list: see cloneFinding). */
  addAttempt(f: Finding, attempt: FixAttempt): void {
    f.attempts = frozen([...f.attempts, attempt]);
  }

  addSource(f: Finding, source: FindingSource): void {
    if (!f.sources.some((s) => s.source === source.source && s.cycle === source.cycle)) {
      f.sources = frozen([...f.sources, { ...source }]);
    }
    f.lastCycle = Math.max(f.lastCycle, source.cycle);
    this.touch(f);
  }

  create(raw: RawFinding, source: FindingSource): Finding {
    const now = this.opts.now();
    const f: Finding = {
      taskId: this.taskId,
      id: `F-${this.nextNumber++}`,
      fingerprint: fingerprint(raw),
      severity: raw.severity,
      category: raw.category,
      title: raw.title,
      body: raw.body,
      file: normalizeFile(raw.file),
      lineStart: raw.lineStart,
      lineEnd: raw.lineEnd,
      suggestedFix: raw.suggestedFix,
      sources: frozen([{ ...source }]),
      status: "open",
      firstCycle: source.cycle,
      lastCycle: source.cycle,
      timesReopened: 0,
      attempts: frozen([]),
      note: null,
      createdAt: now,
      updatedAt: now,
    };
    this.findings.set(f.id, f);
    if (!isGateOnly(f)) this.index.add(f);
    this.changed.add(f.id);
    this.emit("finding.added", {
      id: f.id,
      severity: f.severity,
      title: f.title,
      source: source.source,
      cycle: source.cycle,
    });
    return f;
  }

  /** A learning to record with the stage (e.g. from a refuted finding). */
  teach(l: NewLearning): void {
    this.learnings.add.push(l);
  }

  /** A finding dismissed by learning `id`: one more hit, counted with the stage. */
  hit(id: string): void {
    this.learnings.hits.push(id);
  }

  drain(): {
    findings: Finding[];
    events: NewTaskEvent[];
    learnings: { add: NewLearning[]; hits: string[] };
  } {
    const changed = [...this.changed]
      .map((id) => this.findings.get(id))
      .filter((f): f is Finding => f !== undefined);
    const findings = sortFindings(changed).map(cloneFinding);
    const events = this.events;
    const learnings = this.learnings;
    this.changed.clear();
    this.events = [];
    this.learnings = { add: [], hits: [] };
    return { findings, events, learnings };
  }
}
