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
import { copyFinding, hasFindingShape } from "./finding-copy.js";
import { fingerprint, normalizeFile } from "./fingerprint.js";

export interface RegistryOptions {
  blockingSeverity: Severity;
  now: () => number;
}

export function numericId(id: string): number {
  // Sorting and every prompt section call this per finding: no regex on the usual `F-<n>` shape.
  const c = id.charCodeAt(0);
  const prefixed = (c === 70 || c === 102) && id.charCodeAt(1) === 45;
  const digits = prefixed ? digitsFrom(id, 2) : -1;
  if (digits >= 0) return digits;
  const n = Number.parseInt(prefixed ? id.slice(2) : id, 10);
  return Number.isNaN(n) ? Number.MAX_SAFE_INTEGER : n;
}

/**
 * `text` from `start` on read as a decimal number when it is 1–15 plain digits (exact in a
 * double, and what parseInt would return), else -1: the common `F-<n>` id without the string
 * slice parseInt needs.
 */
function digitsFrom(text: string, start: number): number {
  const len = text.length - start;
  if (len < 1 || len > 15) return -1;
  let n = 0;
  for (let i = start; i < text.length; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
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

/** `xs` frozen: a list inside a finding is replaced, never changed in place (see snapshot). */
export function frozen<T>(xs: readonly T[]): T[] {
  return Object.freeze(xs) as T[];
}

/**
 * A finding from outside (the store, a caller) as the registry keeps it: its own, lists frozen.
 * A list that is frozen already (a snapshot from `all()` fed back to `load`) cannot change, so it
 * is shared rather than copied; any other list is copied, since its owner may still change it.
 * `regular`: whether `f` has exactly Finding's keys, so that the copy can be made by a literal.
 */
function adopt(f: Finding, regular: boolean): Finding {
  const own = regular ? copyFinding(f) : { ...f };
  own.sources = ownFrozen(f.sources);
  own.attempts = ownFrozen(f.attempts);
  return own;
}

function ownFrozen<T>(xs: T[]): T[] {
  return Object.isFrozen(xs) ? xs : frozen(xs.slice());
}

/** A finding raised only by gates: reviewers' statuses do not touch it, only gates resolve it. */
export function isGateOnly(f: Finding, gate?: string): boolean {
  // A loop, not `every` with a closure: selections ask this of every finding.
  const sources = f.sources;
  if (sources.length === 0) return false;
  const named = gate === undefined || gate === "" ? null : `gate:${gate}`;
  for (const s of sources) {
    if (named === null ? !s.source.startsWith("gate:") : s.source !== named) return false;
  }
  return true;
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
  /**
   * The findings `isGateOnly` holds for, kept up to date wherever sources change (load, create,
   * addSource), so a selection asks a set instead of reading every finding's sources.
   */
  private readonly gateOnly = new Set<Finding>();
  /**
   * Findings loaded with keys other than exactly Finding's (see finding-copy.ts): snapshots of
   * them are spreads, keeping those keys. Every other finding is copied by a literal. Findings
   * gain or lose no keys in the registry, so what is irregular at load stays so, and only so.
   */
  private readonly irregular = new Set<Finding>();
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
      const regular = hasFindingShape(f);
      const copy = adopt(f, regular);
      if (!regular) this.irregular.add(copy);
      this.findings.set(copy.id, copy);
      this.track(copy);
      const n = numericId(copy.id);
      if (n !== Number.MAX_SAFE_INTEGER) this.nextNumber = Math.max(this.nextNumber, n + 1);
      else this.inIdOrder = false;
    }
  }

  /**
   * A copy of `f`, one of this registry's findings, to hand out. Its lists are frozen and the
   * registry replaces them instead of changing them (`addSource`, `addAttempt`), so a shallow
   * copy is a snapshot that later registry changes do not reach: what `forReview` and `forFix`
   * hand out costs one object per finding, not three.
   */
  snapshot(f: Finding): Finding {
    return this.irregular.size > 0 && this.irregular.has(f) ? { ...f } : copyFinding(f);
  }

  /** Whether `f`, one of this registry's findings, is raised only by gates (see isGateOnly). */
  isGateOnly(f: Finding): boolean {
    return this.gateOnly.size > 0 && this.gateOnly.has(f);
  }

  /** A new finding of the registry: gate-only ones are noted, the others indexed for dedup. */
  private track(f: Finding): void {
    if (isGateOnly(f)) this.gateOnly.add(f);
    else this.index.add(f);
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
      if (isGateOnly(f)) this.gateOnly.add(f);
      else this.gateOnly.delete(f);
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
    this.track(f);
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
    const findings = sortFindings(changed).map((f) => this.snapshot(f));
    const events = this.events;
    const learnings = this.learnings;
    this.changed.clear();
    this.events = [];
    this.learnings = { add: [], hits: [] };
    return { findings, events, learnings };
  }
}
