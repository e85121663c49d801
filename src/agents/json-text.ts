/**
 * The JSON object in a model's final text, for backends without a native structured-output
 * channel (pi) and as the HTTP backends' parse of a schema-constrained answer. Accepts the bare
 * object, a fenced ```json block, or the outermost `{…}`; anything else is undefined.
 */
export function jsonFromText(text: string): unknown {
  const candidates = [text.trim()];
  const fence = /```(?:json)?\s*\n([\s\S]*?)\n?```/.exec(text);
  if (fence?.[1]) candidates.push(fence[1].trim());
  const first = text.indexOf("{");
  const last = text.lastIndexOf("}");
  if (first >= 0 && last > first) candidates.push(text.slice(first, last + 1));
  for (const c of candidates) {
    try {
      const v: unknown = JSON.parse(c);
      if (typeof v === "object" && v !== null) return v;
    } catch {
      // Try the next candidate.
    }
  }
  return undefined;
}

/** The instruction appended to a prompt when the backend cannot enforce a schema itself. */
export function schemaInstruction(schema: Record<string, unknown>): string {
  return [
    "",
    "Answer with only a JSON object (no prose, no code fence) that matches this JSON Schema:",
    JSON.stringify(schema),
  ].join("\n");
}
