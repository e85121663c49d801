import type { RawFinding } from "../domain/types.js";
import { redactSecrets } from "../util/redact.js";
import { trimTrailing } from "../util/trim.js";

/** Tails kept per stream: enough to see the failure, bounded so a noisy gate cannot flood the prompt. */
export const GATE_TAIL_BYTES = 4096;
const DIGEST_LINES = 8;
const ERROR_LINE =
  /\b(error|errors|failed|failure|fail|exception|panic|assert(?:ion)?|expected|cannot|not found)\b|✗|✖|×/i;

/** The last `max` bytes of a stream, cut at a line start when one is near, never mid-character. */
export function tail(text: string, max = GATE_TAIL_BYTES): { text: string; cut: boolean } {
  const buf = Buffer.from(text, "utf8");
  if (buf.length <= max) return { text, cut: false };
  let s = buf.subarray(buf.length - max).toString("utf8");
  s = s.replace(/^\uFFFD+/, "");
  const nl = s.indexOf("\n");
  if (nl >= 0 && nl < 200) s = s.slice(nl + 1);
  return { text: s, cut: true };
}

/** The lines most likely to say what went wrong, from both streams, in order, deduplicated. */
function digest(stdout: string, stderr: string): string[] {
  const seen = new Set<string>();
  const lines: string[] = [];
  for (const line of `${stderr}\n${stdout}`.split(/\r?\n/)) {
    const t = line.trim();
    if (t === "" || !ERROR_LINE.test(t) || seen.has(t)) continue;
    seen.add(t);
    lines.push(t.length > 200 ? `${t.slice(0, 199)}…` : t);
    if (lines.length >= DIGEST_LINES) break;
  }
  return lines;
}

function section(name: string, text: string): string {
  if (text.trim() === "") return `${name}: (empty)`;
  const t = tail(text);
  return `${name}${t.cut ? ` (last ${GATE_TAIL_BYTES} bytes)` : ""}:\n${trimTrailing(t.text, "\n")}`;
}

/** SPEC §7: a failing gate as a finding — P1, category "gate", digest and bounded tails. */
export function gateFinding(
  name: string,
  exitCode: number | null,
  rawStdout: string,
  rawStderr: string,
  timedOut: boolean,
): RawFinding {
  // Gate logs quote tokens (a failing test's fixture, an env dump): redact before any tail or cut.
  const stdout = redactSecrets(rawStdout);
  const stderr = redactSecrets(rawStderr);
  const how = timedOut ? "timed out" : exitCode === null ? "killed by a signal" : `exit ${exitCode}`;
  const lines = digest(stdout, stderr);
  const head = `The gate \`${name}\` failed (${how}).`;
  const dig =
    lines.length > 0 ? `Digest:\n${lines.map((l) => `- ${l}`).join("\n")}` : "Digest: no error lines found.";
  return {
    severity: "P1",
    category: "gate",
    title: timedOut ? `gate ${name} failed (timed out)` : `gate ${name} failed (exit ${exitCode ?? "none"})`,
    body: [head, dig, section("stdout", stdout), section("stderr", stderr)].join("\n\n"),
    file: null,
    lineStart: null,
    lineEnd: null,
    suggestedFix: null,
  };
}
