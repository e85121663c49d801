import { parseSince as parseSinceValue } from "../app/since.js";
import {
  FINAL_VERDICTS,
  FINDING_STATUSES,
  type FinalVerdict,
  type FindingStatus,
  SEVERITIES,
  type Severity,
  TASK_STATUSES,
  type TaskStatus,
} from "../domain/types.js";
import { FixpointError } from "../errors.js";

/**
 * Reading request parameters. Every reader throws FixpointError("usage") with the reason, which
 * the routes answer with 400: a malformed request is told what is wrong, never half-served.
 */

/** `since` (see app/since.ts), default 24h, with the label the page shows. */
export function parseSince(
  value: string | undefined,
  now: number,
): { since: number | undefined; label: string } {
  const v = value?.trim() || "24h";
  return { since: parseSinceValue(v, now), label: v };
}

function oneOf<T extends string>(name: string, allowed: readonly T[], value: string): T {
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new FixpointError("usage", `${name}: \`${value}\` is not one of ${allowed.join(", ")}`);
}

export function parseTaskStatus(v: string): TaskStatus {
  return oneOf("status", TASK_STATUSES, v);
}
export function parseFindingStatus(v: string): FindingStatus {
  return oneOf("status", FINDING_STATUSES, v);
}
export function parseSeverity(v: string): Severity {
  return oneOf("severity", SEVERITIES, v);
}
export function parseVerdict(v: string): FinalVerdict {
  return oneOf("verdict", FINAL_VERDICTS, v.toUpperCase());
}

/** A whole number ≥ 0 (page numbers, offsets, cursors, max cycles); undefined when absent or blank. */
export function parseCount(
  name: string,
  value: string | undefined,
  max = Number.MAX_SAFE_INTEGER,
): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > max) {
    throw new FixpointError("usage", `${name}: \`${value}\` is not a whole number between 0 and ${max}`);
  }
  return n;
}

/** A positive amount of money in USD; undefined when absent or blank. */
export function parseUsd(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const n = Number(value.trim().replace(/^\$/, ""));
  if (!Number.isFinite(n) || n <= 0 || n > 1_000_000) {
    throw new FixpointError("usage", `${name}: \`${value}\` is not an amount in USD above 0`);
  }
  return n;
}

/** Required free text (a note, a justification): trimmed, non-empty, at most 4,000 characters. */
export function requireText(name: string, value: string | undefined): string {
  const v = (value ?? "").trim();
  if (v === "") throw new FixpointError("usage", `${name} is required`);
  if (v.length > 4000) throw new FixpointError("usage", `${name} is longer than 4,000 characters`);
  return v;
}

export function optionalText(name: string, value: string | undefined): string | undefined {
  return value === undefined || value.trim() === "" ? undefined : requireText(name, value);
}
