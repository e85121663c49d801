import { isActiveFinding, type TaskEvent } from "../../domain/types.js";

export interface CycleSummary {
  cycle: number;
  resolved: number;
  stillOpen: number;
  added: number;
  reopened: number;
}

/**
 * Replays the registry's events into one line per review cycle:
 * `cycle 2: 3 resolved, 1 still open, 1 new, 0 reopened`. "Still open" counts findings raised in
 * an earlier cycle that were not settled by the end of this one.
 */
export function cycleSummaries(events: TaskEvent[]): CycleSummary[] {
  const status = new Map<string, string>();
  const born = new Map<string, number>();
  const byCycle = new Map<number, CycleSummary>();
  const get = (c: number) => {
    let s = byCycle.get(c);
    if (!s) {
      s = { cycle: c, resolved: 0, stillOpen: 0, added: 0, reopened: 0 };
      byCycle.set(c, s);
    }
    return s;
  };
  const cycles: number[] = [];
  const close = (c: number) => {
    const s = get(c);
    s.stillOpen = [...status.entries()].filter(
      ([id, st]) => isActiveFinding(st) && (born.get(id) ?? c) < c,
    ).length;
  };
  let current: number | null = null;
  for (const e of events) {
    const c = typeof e.data.cycle === "number" ? e.data.cycle : null;
    const id = typeof e.data.id === "string" ? e.data.id : null;
    if (c === null || id === null) continue;
    if (current !== null && c !== current) close(current);
    if (current !== c) {
      current = c;
      if (!cycles.includes(c)) cycles.push(c);
    }
    if (e.type === "finding.added") {
      status.set(id, "open");
      born.set(id, c);
      get(c).added++;
    } else if (e.type === "finding.status") {
      status.set(id, String(e.data.to));
      if (e.data.to === "resolved") get(c).resolved++;
    } else if (e.type === "finding.reopened") {
      get(c).reopened++;
    }
  }
  if (current !== null) close(current);
  return [...byCycle.values()].sort((a, b) => a.cycle - b.cycle);
}

export function cycleLine(s: CycleSummary): string {
  return `cycle ${s.cycle}: ${s.resolved} resolved, ${s.stillOpen} still open, ${s.added} new, ${s.reopened} reopened`;
}
