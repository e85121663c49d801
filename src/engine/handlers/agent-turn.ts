import { basename, join } from "node:path";
import type { AgentRequest, AgentResult, HandedTranscript } from "../../domain/agent.js";
import { addUsage, type TokenUsage, ZERO_USAGE } from "../../domain/types.js";
import type { StageDef } from "../../workflow/types.js";
import { readArtifactFile } from "../artifacts.js";
import { crashPoint } from "../crash-points.js";
import type { StageContext } from "../deps.js";
import { keepReply } from "../held-reply.js";
import { LEASE_LOST } from "../run-env.js";
import { loadTurns, turnWrite } from "../turns.js";

/** Protocol failures (unparsable output) are retried in place this many times (SPEC §6). */
export const PROTOCOL_RETRIES = 2;

export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

export interface TurnOutcome<T> {
  result: AgentResult;
  parsed: Parsed<T> | null;
  attempts: number;
  usage: TokenUsage;
  costUsd: number;
  agent: string;
  sessionId: string | null;
}

/** What a stage result records of the turn: tokens, cost, session, agent and attempts. */
export function turnFields<T>(turn: TurnOutcome<T>) {
  return {
    usage: turn.usage,
    costUsd: turn.costUsd,
    sessionId: turn.sessionId,
    agent: turn.agent,
    attempts: turn.attempts,
  };
}

/**
 * One agent turn for a stage, with the protocol retry: when `parse` rejects the reply, the agent
 * is asked again (continuing its session where it has one) up to PROTOCOL_RETRIES times. Agent
 * failures (timeout, exit, API error) are returned, not retried here: the backend already retried
 * transient API errors, and a stage whose worktree changed must be committed before any rerun.
 */
export async function runAgentTurn<T>(
  stage: StageDef,
  ctx: StageContext,
  opts: {
    purpose: AgentRequest["purpose"];
    prompt: string;
    /** Where the prefix shared with other requests of the task and cycle ends (AgentRequest). */
    cacheBreaks?: number[];
    schema?: Record<string, unknown>;
    parse?: (result: AgentResult) => Parsed<T>;
    /** Continue this agent's earlier session (fixers and implementers do; reviewers start fresh). */
    continueSession: boolean;
    sessionOverride?: string | null;
    /**
     * Names one of several turns in one visit of the stage (a verify stage's rounds), so each is
     * saved and replayed on its own; absent for stages that take one turn.
     */
    turn?: string;
  },
): Promise<TurnOutcome<T>> {
  const agentName = stage.agent ?? "implementer";
  const role = ctx.task.agents[agentName] ?? agentName;
  const agent = ctx.deps.agents.resolve(role);
  let sessionId: string | undefined =
    opts.sessionOverride ?? (opts.continueSession ? ctx.state.sessions[agentName] : undefined) ?? undefined;
  let prompt = opts.prompt;
  let usage = ZERO_USAGE;
  let costUsd = 0;
  let attempts = 0;
  let freshStarted = false;
  // Replies this visit of the stage already got before a worker died (see turns.ts).
  const turnId = opts.turn === undefined ? stage.id : `${stage.id}#${opts.turn}`;
  const saved = await loadTurns(ctx, turnId);
  const runAgent = async (attempt: number) => {
    // An earlier attempt's reply held for the record is saved before the agent works again.
    await ctx.reply?.saveNow();
    // The run id keeps a second run's transcripts from overwriting the first's.
    const transcriptPath = join(
      ctx.deps.transcriptsDir,
      ctx.task.id,
      `r${ctx.runId}-${stage.id}-c${ctx.state.cycle}-v${ctx.visit}-a${attempt}.log`,
    );
    // The transcript's text, when the backend hands it over; its file is then written when the
    // run's PendingWrites says, before the run returns.
    let handed: HandedTranscript | undefined;
    const writes = ctx.writes;
    const result = await agent.backend.run({
      agent: agentName,
      purpose: opts.purpose,
      taskId: ctx.task.id,
      stageId: stage.id,
      cycle: ctx.state.cycle,
      prompt,
      // A protocol retry outside a session repeats the original prompt first: its breaks still hold.
      ...(opts.cacheBreaks?.length ? { cacheBreaks: opts.cacheBreaks } : {}),
      cwd: ctx.workdir,
      model: agent.model,
      schema: opts.schema,
      sessionId: agent.backend.supportsSessions ? sessionId : undefined,
      timeoutMs: stage.timeoutMs ?? agent.timeoutMs,
      env: agent.env,
      signal: ctx.signal,
      extraArgs: agent.extraArgs,
      groups: ctx.deps.groups,
      transcriptPath,
      ...(writes
        ? {
            onTranscript: (t: HandedTranscript) => {
              handed = t;
              writes.file(
                transcriptFile(t, ctx.deps.listener, ctx.task.id, stage.id),
                Buffer.byteLength(t.text),
              );
            },
          }
        : {}),
      onProgress: (p) =>
        ctx.deps.listener({
          type: "agent.progress",
          taskId: ctx.task.id,
          stageId: stage.id,
          message: p.message,
          costUsd: p.costUsd,
          ...(p.responseStarted ? { responseStarted: true as const } : {}),
        }),
    });
    // The transcript goes into the store too, in the reply's own commit: `fixpoint logs --agent`
    // on another machine reads it from there. Not once the lease is gone: the store may be out
    // of reach, and the task is another worker's.
    const transcript =
      ctx.signal.reason === LEASE_LOST
        ? null
        : handed
          ? {
              taskId: ctx.task.id,
              kind: "transcript" as const,
              name: basename(transcriptPath),
              text: handed.text,
            }
          : await readArtifactFile(ctx.task.id, "transcript", transcriptPath);
    await keepReply(ctx.deps, ctx.reply, turnWrite(ctx, turnId, attempt, result, saved, transcript));
    return result;
  };
  for (;;) {
    attempts++;
    const replayed = saved.get(attempts);
    if (replayed) crashPoint("agent-exited");
    const result = replayed ?? (await runAgent(attempts));
    usage = addUsage(usage, result.usage);
    costUsd += result.costUsd;
    if (result.failure?.kind === "session_not_found" && sessionId && !freshStarted && !ctx.signal.aborted) {
      // The session is lost or stale (the agent's own store was cleared, another machine): start
      // a fresh one, once, with the full prompt, which rebuilds the context from the registry.
      await sessionLost(ctx, agentName, sessionId);
      freshStarted = true;
      sessionId = undefined;
      prompt = opts.prompt;
      continue;
    }
    if (result.sessionId) sessionId = result.sessionId;
    const base = { result, attempts, usage, costUsd, agent: agentName, sessionId: sessionId ?? null };
    if (!result.ok || !opts.parse) return { ...base, parsed: null };
    const parsed = opts.parse(result);
    if (parsed.ok || attempts - (freshStarted ? 1 : 0) > PROTOCOL_RETRIES || ctx.signal.aborted)
      return { ...base, parsed };
    prompt = retryPrompt(opts.prompt, parsed.error, Boolean(sessionId && agent.backend.supportsSessions));
  }
}

async function sessionLost(ctx: StageContext, agent: string, sessionId: string): Promise<void> {
  const message = `session ${sessionId} of ${agent} could not be resumed; started a fresh one`;
  ctx.deps.listener({ type: "notice", taskId: ctx.task.id, message });
  const event = {
    taskId: ctx.task.id,
    runId: ctx.runId,
    type: "agent.session_lost",
    data: { agent, session: sessionId, message },
  };
  const now = ctx.deps.clock.now();
  await ctx.deps.store.transaction((tx) => tx.appendEvents([event], now), { fence: ctx.deps.lease });
}

/**
 * The write of a handed-over transcript's file, which says so as the backend would have when it
 * fails. It holds the text and the names it reports with, not the stage's context: a run may hold
 * many until it ends.
 */
function transcriptFile(
  t: HandedTranscript,
  listener: StageContext["deps"]["listener"],
  taskId: string,
  stageId: string,
): () => void {
  return () => {
    const message = t.write();
    if (message) listener({ type: "agent.progress", taskId, stageId, message });
  };
}

function retryPrompt(original: string, error: string, inSession: boolean): string {
  const ask =
    `Your previous reply could not be read by fixpoint (${error}). ` +
    "Reply again with only the JSON object described in the output format, in a ```json fenced block.";
  // In a continued session the agent still has the original request; elsewhere repeat it.
  return inSession ? ask : `${original}\n\n---\n\n${ask}`;
}
