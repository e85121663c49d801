import type { FixReport, NewLearning, RawFinding, ReviewOutput } from "../domain/types.js";
import type { LearnedDismissal } from "../findings/learnings.js";
import type { VerifyVerdict } from "../findings/verify-parse.js";

/**
 * What a stage did to the task's accounts, as plain data. Handlers return effects; the executor
 * applies them to the registry and the run state in a fixed order (declaration order for the
 * children of a parallel stage), so the result never depends on completion order and a parallel
 * stage interrupted half-way can be finished from its checkpoint.
 */
export type Effect =
  | { type: "none" }
  | {
      type: "review";
      stageId: string;
      output: ReviewOutput;
      expectedIds: string[];
      head: string | null;
      failed?: boolean;
      /**
       * Findings the reviewer raised that a learning answers (issue 16), kept out of `output`:
       * recorded dismissed with the learning's id, never shown to the fixer.
       */
      learned?: { finding: RawFinding; dismissal: LearnedDismissal }[];
    }
  | { type: "gates"; results: GateResultData[] }
  | {
      type: "fix";
      report: FixReport | null;
      shownIds: string[];
      commitSha: string | null;
      parseError?: string;
    }
  | {
      /** A verify stage's verdicts on incoming findings (refuted ones are dismissed). */
      type: "verify";
      stageId: string;
      verdicts: VerifyVerdict[];
      /** A learning per refuted finding (`source.findingId`), recorded when the refutation dismisses it. */
      learnings?: NewLearning[];
    }
  | {
      type: "findings";
      source: string;
      findings: RawFinding[];
      /** Per finding, same order: its own source and author (a PR thread `pr:<id>`); default `source`. */
      origins?: { source: string; author?: string }[];
      /** Findings raised by these sources are resolved (threads resolved on GitHub). */
      resolvedSources?: string[];
      /** Per finding, same order: the learning that answers it (recorded dismissed), or null. */
      learned?: (LearnedDismissal | null)[];
      /** Learnings taught by allowed PR authors' replies, recorded with the stage. */
      learnings?: NewLearning[];
    };

export interface GateResultData {
  name: string;
  passed: boolean;
  finding: RawFinding | null;
}
