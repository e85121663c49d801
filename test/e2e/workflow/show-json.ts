import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { wireUsage } from "../fake-model/script.js";
import type { RecordedRequest, Usage } from "../fake-model/server.js";

/** The parts of `fixpoint show --json` and `findings --json` (docs/cli.md) the suite reads. */
export interface ShowJson {
  task: {
    id: string;
    status: string;
    final_verdict: string | null;
    reason: string | null;
    branch: string | null;
    worktree: string | null;
  };
  runs: {
    id: number;
    kind: string;
    status: string;
    final_verdict: string | null;
    reason: string | null;
    stored_review_issues: number;
  }[];
  stages: StageJson[];
  artifacts: { reviews: string[] };
  totals: { cost_usd: number; tokens: number };
}

export interface StageJson {
  run_id: number;
  stage: string;
  kind: string;
  cycle: number;
  outcome: string;
  failure_class: string | null;
  failure_reason: string | null;
  duration_ms: number;
  tokens: { input: number; output: number; cache_read: number; cache_write: number };
  cost_usd: number;
  head_after: string | null;
  session_id: string | null;
}

export interface FindingJson {
  id: string;
  severity: string;
  status: string;
  title: string;
  file: string | null;
  attempts: { cycle: number; status: string; justification: string; commit: string | null }[];
}

export function stageUsage(stages: StageJson[]): Usage {
  const sum: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const s of stages) {
    sum.input += s.tokens.input;
    sum.output += s.tokens.output;
    sum.cacheRead += s.tokens.cache_read;
    sum.cacheWrite += s.tokens.cache_write;
  }
  return sum;
}

/** What the fake model reported, in each wire API's own terms, for the given requests. */
export function reportedUsage(requests: RecordedRequest[]): Usage {
  const sum: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
  for (const r of requests) {
    if (!r.reply || !r.conversation || !("text" in r.reply || "toolCall" in r.reply)) continue;
    const u = wireUsage(r.conversation.api, r.reply);
    sum.input += u.input;
    sum.output += u.output;
    sum.cacheRead += u.cacheRead;
    sum.cacheWrite += u.cacheWrite;
  }
  return sum;
}

/** Claude Code's own `total_cost_usd` of every run of the task, read from fixpoint's transcripts. */
export function claudeReportedCost(projectRoot: string, taskId: string): number {
  const dir = join(projectRoot, ".fixpoint", "transcripts", taskId);
  let sum = 0;
  for (const f of readdirSync(dir)) {
    for (const line of readFileSync(join(dir, f), "utf8").split("\n")) {
      if (!line.startsWith("{") || !line.includes('"type":"result"')) continue;
      const cost = (JSON.parse(line) as { total_cost_usd?: unknown }).total_cost_usd;
      if (typeof cost === "number") sum += cost;
    }
  }
  return sum;
}
