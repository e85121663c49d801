import type { JsonObject } from "../../domain/types.js";
import { crashPoint } from "../crash-points.js";
import type { StageContext } from "../deps.js";

export interface CommitOutcome {
  headBefore: string;
  headAfter: string;
  /** Commits the agent made itself during the stage (detected, never lost). */
  agentCommits: { sha: string; subject: string }[];
  /** Our commit of the uncommitted changes, when there were any. */
  committed: string | null;
}

/**
 * Commits whatever the agent left uncommitted and reports what happened since `headBefore`,
 * including commits the agent made on its own.
 */
export async function commitStageWork(
  ctx: StageContext,
  headBefore: string,
  message: string,
): Promise<CommitOutcome> {
  const { git } = ctx.deps;
  const mid = await git.headSha(ctx.workdir);
  // A reply held for the stage's record (held-reply.ts) is saved before its work is in a commit: the
  // agent's own commits, or ours once the port has found something to commit.
  const saveReply = async (): Promise<void> => ctx.reply?.saveNow();
  if (mid !== headBefore) await saveReply();
  const agentCommits = mid === headBefore ? [] : await git.commitsBetween(ctx.workdir, headBefore, mid);
  const committed = await git.commitAll(ctx.workdir, message, { head: mid, beforeCommit: saveReply });
  if (committed) crashPoint("commit-made");
  const headAfter = committed ?? mid;
  return { headBefore, headAfter, agentCommits, committed };
}

/** The commits a stage produced, as an event: the agent's own ones and ours. */
export function commitsEvent(stageId: string, c: CommitOutcome): { type: string; data: JsonObject }[] {
  if (c.agentCommits.length === 0 && !c.committed) return [];
  return [
    {
      type: "stage.commits",
      data: {
        stage: stageId,
        agentCommits: c.agentCommits.map((x) => ({ sha: x.sha, subject: x.subject })),
        committed: c.committed,
        headBefore: c.headBefore,
        headAfter: c.headAfter,
      },
    },
  ];
}
