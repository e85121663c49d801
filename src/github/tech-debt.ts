import type { GithubClient } from "../domain/github.js";
import type { Finding } from "../domain/types.js";
import { errorMessage, FixpointError } from "../errors.js";
import { findingMarker, findingMarkersIn, markerReadable, techDebtIssue } from "./render.js";

export interface TechDebtOptions {
  label: string;
  prUrl?: string;
  taskId: string;
  /** Non-blocking findings to file as well, whatever their status (when follow-ups are on). */
  followups?: Finding[];
}

export interface TechDebtResult {
  created: { findingId: string; number: number; url: string }[];
  existing: { findingId: string; number: number }[];
  /** Findings whose issue could not be created (after the client's retries); a rerun tries again. */
  failed: { findingId: string; reason: string }[];
}

/** The findings that become issues: blocked and deferred ones, plus the follow-ups; one per fingerprint. */
export function techDebtCandidates(findings: Finding[], followups: Finding[] = []): Finding[] {
  const seen = new Set<string>();
  return [...findings.filter((f) => f.status === "blocked" || f.status === "deferred"), ...followups].filter(
    (f) => {
      if (seen.has(f.fingerprint)) return false;
      seen.add(f.fingerprint);
      return true;
    },
  );
}

/**
 * Files each candidate as an issue at most once (SPEC §8.7, §11): one listing of the labelled
 * issues finds the fingerprint markers already filed (open or closed — a closed one was a
 * person's decision), then missing issues are created one by one, each retried with backoff by
 * the client on 5xx and rate limits. A transient failure is recorded and the batch goes on; a
 * permanent one (401, 403) marks the rest failed without asking again. Running it again
 * creates only what is still missing.
 */
export async function fileTechDebtIssues(
  client: Pick<GithubClient, "listIssuesWithLabel" | "createIssue">,
  findings: Finding[],
  opts: TechDebtOptions,
): Promise<TechDebtResult> {
  const result: TechDebtResult = { created: [], existing: [], failed: [] };
  const candidates = techDebtCandidates(findings, opts.followups);
  if (candidates.length === 0) return result;
  const issues = await client.listIssuesWithLabel(opts.label);
  const filed = filedByMarker(issues);
  let stopped: string | null = null;
  for (const finding of candidates) {
    const marker = findingMarker(finding.fingerprint);
    const already = markerReadable(finding.fingerprint)
      ? filed.get(marker)
      : issues.find((i) => i.body.includes(marker));
    if (already) {
      result.existing.push({ findingId: finding.id, number: already.number });
      continue;
    }
    if (stopped !== null) {
      result.failed.push({ findingId: finding.id, reason: stopped });
      continue;
    }
    const { title, body } = techDebtIssue(finding, {
      taskId: opts.taskId,
      fingerprintMarker: marker,
      ...(opts.prUrl ? { prUrl: opts.prUrl } : {}),
    });
    try {
      const issue = await client.createIssue({ title, body, labels: [opts.label] });
      result.created.push({ findingId: finding.id, number: issue.number, url: issue.url });
    } catch (e) {
      result.failed.push({ findingId: finding.id, reason: errorMessage(e) });
      // A bad token or a missing permission fails every issue alike: stop asking.
      if (e instanceof FixpointError && !e.retryable) stopped = errorMessage(e);
    }
  }
  return result;
}

/**
 * The filed issues by the finding markers their bodies hold, the first issue listed winning, as a
 * search of every body for each finding would: one pass over the bodies, not one per finding.
 */
function filedByMarker<I extends { body: string }>(issues: I[]): Map<string, I> {
  const byMarker = new Map<string, I>();
  for (const issue of issues) {
    for (const marker of findingMarkersIn(issue.body)) if (!byMarker.has(marker)) byMarker.set(marker, issue);
  }
  return byMarker;
}
