import { hostname } from "node:os";
import type { AgentResult } from "../domain/agent.js";
import type { ArtifactInput } from "../domain/store.js";
import type { Json, JsonObject } from "../domain/types.js";
import { redactSecrets } from "../util/redact.js";
import type { StageContext } from "./deps.js";
import type { TurnWrite } from "./held-reply.js";

/**
 * Agent turns are saved in the store before the stage's work is committed to git and before the
 * stage is recorded (when the agent changed nothing, the record itself stands in for them: see
 * held-reply.ts). A worker killed in between (the agent's work on disk or in a commit, the stage not
 * recorded) resumes the stage with the saved reply instead of running the agent again on top of
 * its own work: no agent run paid twice, no second implementation.
 *
 * One marker per run and stage id holds the turns of the stage's current visit (cycle + visit),
 * so what is kept is bounded by the workflow's stage count, not by the run's length. Replies are
 * redacted before they are stored, like everything else an agent says.
 */
interface SavedTurns {
  visit: string;
  /**
   * Where the agent worked (placeOf): its work is on that machine's disk only. Absent from a
   * marker written before it was recorded, which is trusted as it was.
   */
  at?: string;
  turns: Record<string, AgentResult>;
}

/**
 * A worktree as one machine knows it. A reply saved by a worker in another clone (another host,
 * or another folder of this one) does not stand in for what this worktree holds: its work is
 * there, and what is here may be the half-done work of a run killed in this clone, which the
 * reply would have committed as the stage's (the PostgreSQL chaos suite caught "t-6 one (half)"
 * on the remote). The stage runs again; what was left here is kept first (keepLeftWork).
 */
function placeOf(workdir: string): string {
  return `${hostname()}:${workdir}`;
}

/** Whether replies saved as `saved` stand in for the work in `workdir`. */
function savedHere(saved: SavedTurns, workdir: string): boolean {
  return saved.at === undefined || saved.at === placeOf(workdir);
}

function markerKey(ctx: Pick<StageContext, "task" | "runId">, stageId: string): string {
  return turnsMarkerKey(ctx.task.id, ctx.runId, stageId);
}

/** The marker holding a stage's saved replies in a run. */
export function turnsMarkerKey(taskId: string, runId: number, stageId: string): string {
  return `turns:${taskId}:${runId}:${stageId}`;
}

function visitKey(ctx: Pick<StageContext, "state" | "visit">): string {
  return `${ctx.state.cycle}.${ctx.visit}`;
}

/** The saved replies of this visit of the stage, by attempt number (empty when none). */
export async function loadTurns(ctx: StageContext, stageId: string): Promise<Map<number, AgentResult>> {
  const key = markerKey(ctx, stageId);
  // A run made by this process has only the turns it saved itself: no read for the others.
  if (ctx.savedTurns && !ctx.savedTurns.has(key)) return new Map();
  const raw = await ctx.deps.store.getMarker(key);
  const saved = parseSaved(raw);
  const out = new Map<number, AgentResult>();
  if (saved === null || saved.visit !== visitKey(ctx) || !savedHere(saved, ctx.workdir)) return out;
  for (const [attempt, result] of Object.entries(saved.turns)) out.set(Number(attempt), result);
  return out;
}

/**
 * What saving one reply writes, with the turn's transcript when there is one: null when there is
 * nothing to write. A cancelled turn is never saved (it reruns); its transcript still is.
 * Adds the reply to `earlier` (the visit's replies, all of which the marker holds).
 */
export function turnWrite(
  ctx: StageContext,
  stageId: string,
  attempt: number,
  result: AgentResult,
  earlier: Map<number, AgentResult>,
  transcript: ArtifactInput | null = null,
): TurnWrite | null {
  const keep = result.failure?.kind !== "cancelled" && !ctx.signal.aborted;
  if (!keep && transcript === null) return null;
  let value: JsonObject | null = null;
  if (keep) {
    earlier.set(attempt, result);
    const turns: Record<string, AgentResult> = {};
    for (const [n, r] of earlier) turns[String(n)] = redactTurn(r);
    value = { visit: visitKey(ctx), at: placeOf(ctx.workdir), turns } as unknown as JsonObject;
  }
  const key = markerKey(ctx, stageId);
  // Noted before the write: a write that fails may still have been committed.
  if (value !== null) ctx.savedTurns?.add(key);
  return { key, value, transcript };
}

function redactTurn(r: AgentResult): AgentResult {
  const out: AgentResult = { ...r, text: redactSecrets(r.text) };
  if (r.structured !== undefined) out.structured = JSON.parse(redactSecrets(JSON.stringify(r.structured)));
  if (r.failure) out.failure = { ...r.failure, message: redactSecrets(r.failure.message) };
  return out;
}

function parseSaved(raw: Json | null): SavedTurns | null {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return null;
  const visit = raw.visit;
  const turns = raw.turns;
  if (typeof visit !== "string" || turns === null || typeof turns !== "object" || Array.isArray(turns))
    return null;
  const out: Record<string, AgentResult> = {};
  for (const [k, v] of Object.entries(turns)) {
    if (isAgentResult(v)) out[k] = v;
  }
  return typeof raw.at === "string" ? { visit, at: raw.at, turns: out } : { visit, turns: out };
}

function isAgentResult(v: unknown): v is AgentResult {
  if (v === null || typeof v !== "object") return false;
  const r = v as Record<string, unknown>;
  return (
    typeof r.ok === "boolean" &&
    typeof r.text === "string" &&
    typeof r.costUsd === "number" &&
    r.usage !== null &&
    typeof r.usage === "object"
  );
}

/**
 * True when one of these stages has a reply saved for the visit it would make now: it was cut
 * short after its agent answered, and the work on disk is that answer's, to be committed by the
 * stage itself. `stages` gives each stage's cycle and visit number as the resumed run computes them.
 */
export async function hasSavedTurns(
  ctx: Pick<StageContext, "task" | "runId" | "deps" | "workdir">,
  stages: { id: string; cycle: number; visit: number }[],
): Promise<boolean> {
  for (const st of stages) {
    const saved = parseSaved(await ctx.deps.store.getMarker(markerKey(ctx, st.id)));
    if (saved !== null && saved.visit === `${st.cycle}.${st.visit}` && savedHere(saved, ctx.workdir))
      return true;
  }
  return false;
}
