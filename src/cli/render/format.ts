import { formatDuration } from "../../util/duration.js";
import { redactSecrets } from "../../util/redact.js";

export { money } from "../../util/money.js";

export function elapsed(ms: number): string {
  if (ms < 1000) return `${(Math.max(0, ms) / 1000).toFixed(1)}s`;
  return formatDuration(Math.round(ms / 1000) * 1000);
}

/**
 * `12,345`: a whole number with its thousands grouped, as `toLocaleString("en")` writes it, without
 * loading ICU's number formats (17 ms the first time in a process: a tenth of `status`'s budget).
 */
export function thousands(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString("en");
  const digits = String(Math.abs(n));
  let out = digits.slice(0, digits.length % 3 || 3);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}

/** `name ............ ` padded to a fixed width, as in SPEC §3. */
export function dotted(name: string, width = 20): string {
  const dots = Math.max(3, width - name.length);
  return `${name} ${".".repeat(dots)}`;
}

/** Redacts first: a cut could leave a prefix of a secret that no pattern recognises any more. */
export function truncate(raw: string, max: number, env: NodeJS.ProcessEnv = process.env): string {
  const text = redactSecrets(raw, env);
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * The width of each column: its longest cell, header included. A loop, not `Math.max(...cells)`,
 * which runs out of stack somewhere past 125,000 rows (it did at 200,000 findings).
 */
export function columnWidths(rows: readonly (readonly string[])[], columns: number): number[] {
  const widths = new Array<number>(columns).fill(0);
  for (const row of rows) {
    for (let i = 0; i < columns; i++) widths[i] = Math.max(widths[i] ?? 0, (row[i] ?? "").length);
  }
  return widths;
}

export function pad(text: string, width: number): string {
  return text.length >= width ? text : text + " ".repeat(width - text.length);
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}
