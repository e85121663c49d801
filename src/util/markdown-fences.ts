export interface FencedBlock {
  /** The info string after the opening fence, trimmed (`json`, `suggestion`, `ts title="x"`). */
  info: string;
  body: string;
  /** Offsets in the text: where the opening fence starts and the closing one ends. */
  start: number;
  end: number;
}

/**
 * Fenced code blocks of markdown (agent replies, GitHub comments) with their info string and
 * where each stands in the text; an unclosed fence runs to the end. A closing fence is a line of
 * only the opening fence's character, at least as many, so a fence inside a block of a longer
 * one does not end it. Lines may end in CRLF.
 */
export function fencedBlocks(text: string): FencedBlock[] {
  const out: FencedBlock[] = [];
  const open = /^[ \t]{0,3}(`{3,}|~{3,})([^\n`]{0,80})$/gm;
  for (;;) {
    const m = open.exec(text);
    if (!m) return out;
    const fence = m[1] ?? "```";
    const from = m.index + m[0].length + 1;
    const close = new RegExp(
      `^[ \\t]{0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}[ \\t]*\\r?$`,
      "gm",
    );
    close.lastIndex = from;
    const c = close.exec(text);
    const end = c ? c.index + c[0].length : text.length;
    out.push({
      info: (m[2] ?? "").trim(),
      body: text.slice(from, c ? c.index : text.length),
      start: m.index,
      end,
    });
    open.lastIndex = Math.max(end, open.lastIndex);
  }
}
