import { fencedBlocks } from "./markdown-fences.js";

/**
 * Finding the JSON an agent put in its reply: the one extractor the reply parsers (findings/)
 * and the backends without a native structured-output channel (agents/) share. Fences are the
 * markdown ones (util/markdown-fences.ts): a closing fence is a line made only of the opening
 * fence's character (JSON strings cannot hold a raw newline, so such a line can never be inside
 * the JSON itself).
 */

export type JsonCandidate =
  | { ok: true; value: unknown; from: "json-fence" | "whole-text" | "embedded" }
  | { ok: false; error: string };

/**
 * The last fenced ```json block (an untagged fence counts when it holds an object), else the
 * whole text when it is one JSON value, else the outermost `{…}` inside prose when that parses
 * as an object ("Here is my review: {…}"). Null when there is no candidate at all.
 */
export function extractJson(text: string): JsonCandidate | null {
  const blocks = fencedBlocks(text).filter((b) => {
    const lang = b.info.split(/\s/)[0]?.toLowerCase() ?? "";
    return lang === "json" || lang === "jsonc" || (lang === "" && /^\s*[[{]/.test(b.body));
  });
  const last = blocks.at(-1);
  if (last) {
    const parsed = tryParse(last.body);
    return parsed.ok ? { ok: true, value: parsed.value, from: "json-fence" } : parsed;
  }
  const whole = text.trim();
  if (/^[[{]/.test(whole)) {
    const parsed = tryParse(whole);
    if (parsed.ok) return { ok: true, value: parsed.value, from: "whole-text" };
    // `{…} and a closing remark`: the object alone, when there is one; else why it failed.
    const embedded = embeddedObject(text);
    return embedded === undefined ? parsed : { ok: true, value: embedded, from: "embedded" };
  }
  const embedded = embeddedObject(text);
  return embedded === undefined ? null : { ok: true, value: embedded, from: "embedded" };
}

/** The JSON object in a model's final text, or undefined when it holds none (see extractJson). */
export function jsonObjectFromText(text: string): object | undefined {
  const found = extractJson(text);
  return found?.ok && isObject(found.value) ? found.value : undefined;
}

/** The text from the first `{` to the last `}`, when it is a JSON object. */
function embeddedObject(text: string): object | undefined {
  const first = text.indexOf("{");
  const last = text.lastIndexOf("}");
  if (first < 0 || last <= first) return undefined;
  const parsed = tryParse(text.slice(first, last + 1));
  return parsed.ok && isObject(parsed.value) ? parsed.value : undefined;
}

function isObject(v: unknown): v is object {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function tryParse(s: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(s) };
  } catch (e) {
    return { ok: false, error: `invalid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/** Structured output may arrive as an object or as its JSON text. */
export function structuredValue(structured: unknown): unknown {
  if (typeof structured !== "string") return structured;
  try {
    return JSON.parse(structured);
  } catch {
    // Not JSON: a backend handed back prose; the caller falls back to the text chain.
    return undefined;
  }
}
