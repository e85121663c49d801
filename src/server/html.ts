/**
 * The one way pages build HTML. Every interpolated value is redacted and escaped unless it is
 * already `Html` (built by this module), so untrusted text — agent, reviewer, PR or file text — can only ever
 * become text. `trustedHtml` is the single, loudly named way to emit markup from a string: it is
 * used for the sanitised output of `markdown.ts` and nowhere else.
 */

import { redactSecrets } from "../util/redact.js";

const BRAND: unique symbol = Symbol("fixpoint.html");

export interface Html {
  readonly [BRAND]: true;
  readonly value: string;
}

function make(value: string): Html {
  return { [BRAND]: true, value };
}

export function isHtml(v: unknown): v is Html {
  return typeof v === "object" && v !== null && (v as { [BRAND]?: unknown })[BRAND] === true;
}

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
  "`": "&#96;",
};

/** Escapes text for an element body or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c] ?? c);
}

/** What a template accepts: text (escaped), numbers, Html, lists of those; null/undefined/false print nothing. */
export type Part = string | number | Html | null | undefined | false | readonly Part[];

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return "";
  // Secrets are redacted wherever text is shown (short strings cannot hold one: skip the work).
  if (typeof part === "string") return escapeHtml(part.length >= 8 ? redactSecrets(part) : part);
  if (typeof part === "number") return escapeHtml(String(part));
  if (isHtml(part)) return part.value;
  if (Array.isArray(part)) return part.map(render).join("");
  // Anything else that slipped past the types is text too.
  return escapeHtml(String(part));
}

/** Tagged template: the literal parts are markup, every `${value}` is escaped. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0] ?? "";
  for (let i = 0; i < values.length; i++) out += render(values[i]) + (strings[i + 1] ?? "");
  return make(out);
}

/**
 * Markup from a string, NOT escaped. Only for HTML produced by a sanitiser (markdown.ts); never
 * pass text that came from outside fixpoint.
 */
export function trustedHtml(markup: string): Html {
  return make(markup);
}

/** A URL path with escaped segments, e.g. `href("/tasks", id)`. */
export function href(...segments: string[]): string {
  return segments.map((s, i) => (i === 0 ? s : encodeURIComponent(s))).join("/");
}
