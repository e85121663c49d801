import { REVIEW_VERDICTS, SEVERITIES } from "../domain/types.js";
import { BLOCKED_REASONS } from "./fix-validate.js";

/**
 * JSON Schemas for backends with a structured-output mode. Written for the strict dialects
 * (OpenAI strict mode, Claude tool input): every object closes its properties and lists all of
 * them as required; optional values are expressed as nullable instead.
 */

const nullableString = { type: ["string", "null"] } as const;
const nullableLine = { type: ["integer", "null"] } as const;

export const REVIEW_OUTPUT_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["verdict", "summary", "findings", "prior"],
  properties: {
    verdict: { type: "string", enum: [...REVIEW_VERDICTS] },
    summary: { type: "string", description: "One paragraph." },
    findings: {
      type: "array",
      items: {
        type: "object",
        additionalProperties: false,
        required: [
          "severity",
          "category",
          "title",
          "body",
          "file",
          "line_start",
          "line_end",
          "suggested_fix",
        ],
        properties: {
          severity: { type: "string", enum: [...SEVERITIES] },
          category: { type: "string" },
          title: { type: "string" },
          body: { type: "string" },
          file: nullableString,
          line_start: nullableLine,
          line_end: nullableLine,
          suggested_fix: nullableString,
        },
      },
    },
    prior: {
      type: "array",
      description: "A status for every earlier finding you were shown.",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["id", "status", "note"],
        properties: {
          id: { type: "string" },
          status: { type: "string", enum: ["resolved", "still_open", "not_applicable"] },
          note: nullableString,
        },
      },
    },
  },
} as const;

export const FIX_REPORT_SCHEMA = {
  type: "object",
  additionalProperties: false,
  required: ["summary", "findings"],
  properties: {
    summary: { type: "string" },
    findings: {
      type: "array",
      description: "One entry for every finding id you were given.",
      items: {
        type: "object",
        additionalProperties: false,
        required: ["id", "status", "justification", "reason"],
        properties: {
          id: { type: "string" },
          status: { type: "string", enum: ["fixed", "blocked", "deferred"] },
          justification: { type: "string", description: "fixed: what changed; blocked/deferred: why." },
          reason: { type: ["string", "null"], enum: [...BLOCKED_REASONS, null] },
        },
      },
    },
  },
} as const;
