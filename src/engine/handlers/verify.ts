import type { Finding, NewLearning, TokenUsage } from "../../domain/types.js";
import { addUsage, ZERO_USAGE } from "../../domain/types.js";
import { learningOrigin } from "../../findings/learnings.js";
import { FULL, renderFinding } from "../../findings/render-finding.js";
import { parseVerifyOutput, VERIFY_OUTPUT_SCHEMA, type VerifyVerdict } from "../../findings/verify-parse.js";
import { redactSecrets } from "../../util/redact.js";
import { DEFAULT_VERIFY } from "../../workflow/read-stage.js";
import type { StageDef } from "../../workflow/types.js";
import type { StageContext, StageHandler, StageResult } from "../deps.js";
import type { Effect } from "../effect-types.js";
import { runAgentTurn, type TurnOutcome } from "./agent-turn.js";
import { agentFailure } from "./failure.js";
import { VERIFY_FORMAT } from "./formats.js";

/**
 * A `verify` stage: before anyone pays to fix a finding that came from outside (a PR thread, a
 * bot's review), an agent confirms or refutes it against the code, with evidence (a failing
 * test, a trace, a quote of the code). Round 1 asks about every incoming finding; each later
 * round challenges the ones still refuted or unanswered. It stops after `max-rounds`, or after
 * `clean-rounds` rounds in a row that confirmed nothing new. Refuted findings are dismissed with
 * `refuted: <evidence>` (the `reply` action answers their threads); confirmed and unanswered
 * ones stay open for the fixer. Every round's tokens and cost are the stage's.
 */
export const verifyHandler: StageHandler = {
  async run(stage: StageDef, ctx: StageContext): Promise<StageResult> {
    const head = await ctx.deps.git.headSha(ctx.workdir);
    const incoming = incomingFindings(stage, ctx);
    const acc: TurnTotals = {
      usage: ZERO_USAGE,
      costUsd: 0,
      attempts: 0,
      sessionId: null,
      agent: stage.agent ?? "reviewer",
    };
    const base = () => ({ ...acc, headBefore: head, headAfter: head });
    if (incoming.length === 0) {
      return { ...base(), outcome: "skipped", summary: "nothing to verify", effect: { type: "none" } };
    }
    const maxRounds = stage.maxRounds ?? DEFAULT_VERIFY.maxRounds;
    const cleanRounds = stage.cleanRounds ?? DEFAULT_VERIFY.cleanRounds;
    const confirmed = new Map<string, string>();
    const refuted = new Map<string, string>();
    let clean = 0;
    let round = 0;
    let failure:
      | ReturnType<typeof agentFailure>
      | { failureClass: "unparsable"; failureReason: string }
      | null = null;
    while (round < maxRounds && clean < cleanRounds) {
      const ask = incoming.filter((f) => !confirmed.has(f.id));
      if (ask.length === 0) break;
      round++;
      const turn = await verifyRound(stage, ctx, round, ask, refuted);
      addTurn(acc, turn);
      if (!turn.parsed?.ok) {
        failure = turn.result.ok
          ? { failureClass: "unparsable", failureReason: "verify output unparsable" }
          : agentFailure(turn.result);
        break;
      }
      const fresh = recordVerdicts(turn.parsed.value, ask, confirmed, refuted);
      clean = fresh === 0 ? clean + 1 : 0;
    }
    const { verdicts, summary, effect } = verifyEffect(stage, ctx, incoming, { confirmed, refuted, round });
    // A failed round keeps what earlier rounds established; unverified findings go to the fixer.
    if (failure)
      return {
        ...base(),
        outcome: verdicts.length ? "partial_success" : "fail",
        ...failure,
        summary,
        effect,
      };
    return { ...base(), outcome: "success", summary, effect };
  },
};

/** The tokens, cost and attempts of every round so far, and the last round's session and agent. */
interface TurnTotals {
  usage: TokenUsage;
  costUsd: number;
  attempts: number;
  sessionId: string | null;
  agent: string;
}

/** Adds one round's turn to the stage's totals. */
function addTurn(acc: TurnTotals, turn: TurnOutcome<unknown>): void {
  acc.usage = addUsage(acc.usage, turn.usage);
  acc.costUsd += turn.costUsd;
  acc.attempts += turn.attempts;
  acc.sessionId = turn.sessionId ?? acc.sessionId;
  acc.agent = turn.agent;
}

/** Asks the agent about `ask` in round `round`: the first round plainly, later ones as a challenge. */
async function verifyRound(
  stage: StageDef,
  ctx: StageContext,
  round: number,
  ask: Finding[],
  refuted: Map<string, string>,
): Promise<TurnOutcome<VerifyVerdict[]>> {
  const prompt = await ctx.deps.prompts.render(stage.prompt ?? "verify", {
    task_id: ctx.task.id,
    title: ctx.task.title,
    round: String(round),
    challenge: round === 1 ? FIRST_ROUND : challenge(ask, refuted),
    findings: ask.map((f) => renderFinding(f, FULL)).join("\n\n"),
    output_format: VERIFY_FORMAT,
  });
  return runAgentTurn<VerifyVerdict[]>(stage, ctx, {
    purpose: "review",
    prompt,
    schema: VERIFY_OUTPUT_SCHEMA,
    continueSession: false,
    turn: `round-${round}`,
    parse: (r) => {
      const p = parseVerifyOutput(r.text, r.structured);
      return p.ok ? { ok: true, value: p.verdicts } : { ok: false, error: p.error };
    },
  });
}

/**
 * Records a round's verdicts on the findings it asked about (others are ignored), evidence
 * redacted; a confirmation overrides an earlier refutation. Returns how many it newly confirmed.
 */
function recordVerdicts(
  verdicts: VerifyVerdict[],
  ask: Finding[],
  confirmed: Map<string, string>,
  refuted: Map<string, string>,
): number {
  const asked = new Set(ask.map((f) => f.id));
  let fresh = 0;
  for (const v of verdicts) {
    if (!asked.has(v.id)) continue;
    if (v.verdict === "confirmed") {
      fresh++;
      confirmed.set(v.id, redactSecrets(v.evidence));
      refuted.delete(v.id);
    } else refuted.set(v.id, redactSecrets(v.evidence));
  }
  return fresh;
}

/**
 * What the rounds established: every verdict, a one-line summary, and a learning for each
 * refuted finding.
 */
function verifyEffect(
  stage: StageDef,
  ctx: StageContext,
  incoming: Finding[],
  {
    confirmed,
    refuted,
    round,
  }: { confirmed: Map<string, string>; refuted: Map<string, string>; round: number },
): { verdicts: VerifyVerdict[]; summary: string; effect: Extract<Effect, { type: "verify" }> } {
  const verdicts: VerifyVerdict[] = [
    ...[...confirmed].map(([id, evidence]) => ({ id, verdict: "confirmed" as const, evidence })),
    ...[...refuted].map(([id, evidence]) => ({ id, verdict: "refuted" as const, evidence })),
  ];
  const summary = `${confirmed.size} confirmed, ${refuted.size} refuted, ${incoming.length - confirmed.size - refuted.size} unverified (${round} round${round === 1 ? "" : "s"})`;
  const learnings = [...refuted].flatMap(([id, evidence]) => {
    const f = incoming.find((x) => x.id === id);
    return f ? [refutedLearning(stage, ctx, f, evidence)] : [];
  });
  const effect = {
    type: "verify" as const,
    stageId: stage.id,
    verdicts,
    ...(learnings.length ? { learnings } : {}),
  };
  return { verdicts, summary, effect };
}

/**
 * A refuted finding becomes a learning of the repository (issue 16): its evidence is the text,
 * its file the scope, the finding itself the origin a repeat must match. Such a learning never
 * dismisses a P0 (only a person's does).
 */
function refutedLearning(stage: StageDef, ctx: StageContext, f: Finding, evidence: string): NewLearning {
  return {
    repo: ctx.task.repo,
    text: evidence.trim() === "" ? `${f.title} was refuted by ${stage.id}` : evidence,
    scope: f.file,
    source: { kind: "refuted", taskId: ctx.task.id, findingId: f.id },
    origin: learningOrigin(f),
    createdAt: ctx.deps.clock.now(),
    createdBy: `verify:${stage.id}`,
  };
}

/** Open findings raised this cycle by one of the stage's sources (default: PR threads and reviews). */
function incomingFindings(stage: StageDef, ctx: StageContext): Finding[] {
  const prefixes = stage.sources ?? DEFAULT_VERIFY.sources;
  const cycle = ctx.state.cycle;
  return ctx.registry
    .all()
    .filter(
      (f) =>
        f.status === "open" &&
        !f.note?.startsWith("confirmed by ") &&
        f.sources.some((s) => s.cycle === cycle && prefixes.some((p) => s.source.startsWith(p))),
    );
}

const FIRST_ROUND =
  "Each finding below was raised by someone else — often an automated review bot — and has not been checked. Many such findings are false positives.";

function challenge(ask: Finding[], refuted: Map<string, string>): string {
  const lines = ask
    .filter((f) => refuted.has(f.id))
    .map(
      (f) =>
        `- ${f.id}: you refuted it because: ${(refuted.get(f.id) ?? "").replace(/\s+/g, " ").slice(0, 300)}`,
    );
  return [
    "In an earlier round you refuted or skipped the findings below. Look again, adversarially: try to prove each one real before you refute it again.",
    ...lines,
  ].join("\n");
}
