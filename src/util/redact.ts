/**
 * Secret redaction (SPEC §13): the one step every text passes before it is stored, rendered,
 * posted or logged. Two nets: the values of secret environment variables (those named in the
 * config's `redact-env`, the well-known API-key variables, and any whose name looks secret), and
 * the shapes of well-known tokens, so a key that never passed through our environment (pasted
 * into a prompt, printed by an agent, quoted in a test log) is caught too.
 *
 * Redact BEFORE truncating: a cut can leave a prefix that no longer matches a whole-token shape.
 * As a second net, a known token prefix followed by a few token characters at the very end of a
 * text (or right before an ellipsis) is treated as a cut-off secret and hidden as well.
 */

import { replaceEach } from "./replace-each.js";

export const REDACTED = "[REDACTED]";

const SECRET_NAME = /(TOKEN|SECRET|KEY|PASSWORD|PASSWD|CREDENTIAL)/i;
/**
 * A value must be this long to be hidden wherever it appears: short values ("1", "yes", a test
 * token such as "test") would shred ordinary text and paths. Real keys are far longer.
 */
const MIN_SECRET_LENGTH = 8;
const MIN_NAMED_SECRET_LENGTH = MIN_SECRET_LENGTH;

/** The shortest text any net below can change (see redactSecrets). */
const SHORTEST_REDACTABLE = Math.min(7, MIN_SECRET_LENGTH);

/** Always redacted when set, whatever else the config says. */
export const DEFAULT_REDACT_ENV: readonly string[] = [
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "ANTHROPIC_API_KEY",
  "OPENAI_API_KEY",
];

/**
 * Where a token may start: the start of the text, after any character that is not a letter or a
 * digit (so also after `_` and `-`, where `\b` would not match), or right after a JSON/C escape
 * (`\n`, `\t`, `\u0041`) — a raw agent stream is JSON lines, and `"…\nghp_…"` holds a token after
 * the letter `n`.
 */
export const TOKEN_START = String.raw`(?<=^|[^A-Za-z0-9]|\\[nrtbf]|\\u[0-9A-Fa-f]{4})`;
const token = (source: string, flags = "g") => new RegExp(`${TOKEN_START}${source}`, flags);

/** Token shapes; each replaces the whole match unless it keeps a prefix group ($1). */
const TOKEN_PATTERNS: { re: RegExp; keep?: boolean }[] = [
  // A PEM private key goes whole, header to footer; with the footer cut off, as far as key text
  // goes (base64, headers, and `\n` escapes when it sits inside a JSON string — never past a quote).
  {
    re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----(?:[A-Za-z0-9+/=\s:,\\-])*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|(?=[^A-Za-z0-9+/=\s:,\\-]|$))/g,
  },
  // Anthropic keys are short after the prefix in test fixtures; the generic `sk-` shape needs 16.
  { re: token("sk-ant-[A-Za-z0-9_-]{8,}") },
  { re: token("sk-[A-Za-z0-9_-]{16,}") },
  { re: token("gh[pousr]_[A-Za-z0-9]{20,}") },
  { re: token("github_pat_[A-Za-z0-9_]{20,}") },
  { re: token("xox[abposr]-[A-Za-z0-9-]{10,}") },
  // AWS access key ids (long-term AKIA…, temporary ASIA…, and the other documented prefixes).
  { re: token("(?:AKIA|ASIA|AGPA|AIDA|AROA|AIPA|ANPA|ANVA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])") },
  // JWTs: three base64url segments, the first two starting with `eyJ` (a JSON object).
  { re: token(String.raw`eyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*`) },
  // `Authorization: Bearer x`, `Authorization: token x`, `Authorization: Basic x`, or a bare value.
  {
    re: token(
      String.raw`(Authorization["']?\s*[:=]\s*["']?(?:Bearer|Basic|token|Token|Digest)?\s*)[A-Za-z0-9._~+/=:-]{4,}`,
      "gi",
    ),
    keep: true,
  },
  { re: token(String.raw`(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}`, "gi"), keep: true },
  // `postgres://user:password@host`, `https://x:token@github.com`: keep the user, hide the password.
  // A scheme is short: unbounded, `[a-z0-9+.-]*` read from every word start of a long `a-a-a-…` run.
  { re: /(\b[a-z][a-z0-9+.-]{0,40}:\/\/[^\s/@:]*:)[^\s/@]+(?=@)/gi, keep: true },
];

/**
 * What is left of a token after a cut: a known prefix and some token characters at the end of the
 * text or right before an ellipsis. Bare prefixes (`sk-` alone) are too common to hide.
 */
const CUT_TOKEN = token(
  String.raw`(?:(?:sk-ant-|sk-proj-|sk-|gh[pousr]_|github_pat_|xox[abposr]-)[A-Za-z0-9_-]{6,}|(?:AKIA|ASIA)[A-Z0-9]{6,})(?=\s*(?:\.\.\.|…)?\s*(?:\[truncated\]|\]|\))?\s*$|\s*(?:\.\.\.|…))`,
);

/**
 * Every token pattern above (and CUT_TOKEN) starts with, or contains, one of these literals; a
 * text holding none of them cannot match any, so the patterns are skipped. One scan instead of a
 * dozen: `status --json` pushes 40 MB through here at 100,000 tasks. Keep it a superset of the
 * patterns (redact.test.ts checks it against each of them).
 */
export const TOKEN_HINT =
  /sk-|gh[pousr]_|github_pat_|xox[abposr]-|eyJ|-----BEGIN|:\/\/|A(?:KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|BIA|CCA)|[Bb][Ee][Aa][Rr][Ee][Rr]|[Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz][Aa][Tt][Ii][Oo][Nn]/;

/** Every token shape, for the test that keeps TOKEN_HINT a superset of them. */
export const TOKEN_SHAPES: readonly RegExp[] = [...TOKEN_PATTERNS.map((p) => p.re), CUT_TOKEN];

let namedSecrets: ReadonlySet<string> = new Set(DEFAULT_REDACT_ENV);

/**
 * The environment variables the project names as secrets (`defaults { redact-env "MY_TOKEN" }`).
 * Set once by the CLI after loading the config; every later redaction hides their values.
 */
export function setRedactedEnvNames(names: readonly string[]): void {
  namedSecrets = new Set([...DEFAULT_REDACT_ENV, ...names]);
  envSecretsCache = new WeakMap();
}

let envSecretsCache = new WeakMap<NodeJS.ProcessEnv, string[]>();

/** Values of secret variables, longest first so a secret containing another goes whole. */
function envSecrets(env: NodeJS.ProcessEnv): string[] {
  const cached = envSecretsCache.get(env);
  if (cached) return cached;
  const values = new Set<string>();
  // Names first, values only for the names that qualify: reading every value of `process.env`
  // (each a call into C++) cost more than a stage's whole record (issue 10).
  for (const name of Object.keys(env)) {
    const isNamed = namedSecrets.has(name);
    if (!isNamed && !SECRET_NAME.test(name)) continue;
    const value = env[name];
    if (value === undefined) continue;
    const trimmed = value.trim();
    if (isNamed && trimmed.length >= MIN_NAMED_SECRET_LENGTH) values.add(trimmed);
    else if (trimmed.length >= MIN_SECRET_LENGTH && SECRET_NAME.test(name)) values.add(trimmed);
  }
  const sorted = [...values].sort((a, b) => b.length - a.length);
  // Cached per env object; `process.env` changes rarely and fixpoint itself never changes it.
  if (env !== process.env) envSecretsCache.set(env, sorted);
  return sorted;
}

/** envSecrets of `env`, or of the copy withEnvReadOnce pinned when `env` is `process.env`. */
function secretsOf(env: NodeJS.ProcessEnv): string[] {
  return envSecrets(env === process.env && pinnedEnv !== null ? pinnedEnv : env);
}

/** The secret values redaction hides for `env`, longest first (what a store must look for, too). */
export function secretValues(env: NodeJS.ProcessEnv = process.env): readonly string[] {
  return secretsOf(env);
}

/** `process.env` copied once while `withEnvReadOnce` runs; null otherwise. */
let pinnedEnv: NodeJS.ProcessEnv | null = null;

/**
 * Runs `fn` with `process.env` read once for every redaction it makes, instead of once per
 * string: a prompt section redacts a line per finding, and reading the environment (each name a
 * call into C++) was a fifth of a fix cycle's registry work at 5,000 findings. `fn` must be
 * synchronous and must not change `process.env`; nested calls share the outer copy.
 */
export function withEnvReadOnce<T>(fn: () => T): T {
  if (pinnedEnv !== null) return fn();
  pinnedEnv = { ...process.env };
  try {
    return fn();
  } finally {
    pinnedEnv = null;
  }
}

/** Replaces secrets in `text` with `[REDACTED]`. `env` defaults to `process.env`. Never throws. */
export function redactSecrets(text: string, env: NodeJS.ProcessEnv = process.env): string {
  // Nothing this short can hold a secret value (≥ MIN_SECRET_LENGTH) or a token shape (the
  // shortest, `a://:p@`, is 7 characters): ids, stage names and outcomes skip every pattern.
  if (text.length < SHORTEST_REDACTABLE) return text;
  const out = redactSecretValues(text, env);
  if (!TOKEN_HINT.test(out)) return out;
  return redactTokenShapes(out);
}

const NO_ENV: NodeJS.ProcessEnv = Object.freeze({});

/**
 * Whether redactSecrets would change `text` for its token shapes alone (no secret values): for a
 * store vouching that a status line it wrote needs no token hidden (TaskLinePage.lines), where the
 * row's token hint is set (a URL's `://` sets it).
 */
export function holdsTokenShape(text: string): boolean {
  return redactSecrets(text, NO_ENV) !== text;
}

/**
 * The first net of redactSecrets alone: the values of `env`'s secret variables. For text already
 * known to hold no token shape (a `status --json` page whose rows the store screened as they were
 * written, `TaskJsonPage.tokenFree`), where the token scan would find nothing.
 */
export function redactSecretValues(text: string, env: NodeJS.ProcessEnv = process.env): string {
  if (text.length < SHORTEST_REDACTABLE) return text;
  let out = text;
  for (const secret of secretsOf(env)) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  return out;
}

function redactTokenShapes(text: string): string {
  let out = text;
  for (const { re, keep } of TOKEN_PATTERNS) {
    // What is kept goes back through replaceEach: V8's `$1` slows past 16,384 matches.
    out = keep ? replaceEach(out, re, (m) => `${m[1]}${REDACTED}`) : out.replace(re, REDACTED);
  }
  return out.replace(CUT_TOKEN, REDACTED);
}

/**
 * Redacts every string inside a JSON-like value (objects, arrays), leaving keys, non-strings and
 * the values under `keep` (ids, paths: anything that must stay exact) as they are. Returns the
 * value itself when nothing changed, and copies only the objects on the way to a change: a store
 * write passes through here each stage (util/redact-writes.ts).
 */
export function redactDeep<T>(
  value: T,
  env: NodeJS.ProcessEnv = process.env,
  keep: ReadonlySet<string> = NO_KEYS,
): T {
  return redactValue(value, env, keep, 0) as T;
}

const NO_KEYS: ReadonlySet<string> = new Set();
const MAX_DEPTH = 64;

function redactValue(
  value: unknown,
  env: NodeJS.ProcessEnv,
  keep: ReadonlySet<string>,
  depth: number,
): unknown {
  if (typeof value === "string") return redactSecrets(value, env);
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    for (let i = 0; i < value.length; i++) {
      const r = redactValue(value[i], env, keep, depth + 1);
      if (r === value[i]) continue;
      out ??= value.slice();
      out[i] = r;
    }
    return out ?? value;
  }
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  let out: Record<string, unknown> | null = null;
  for (const k in value) {
    if (!Object.hasOwn(value, k) || keep.has(k)) continue;
    const v = (value as Record<string, unknown>)[k];
    const r = redactValue(v, env, keep, depth + 1);
    if (r === v) continue;
    out ??= { ...value };
    out[k] = r;
  }
  return out ?? value;
}

/**
 * redactSecrets for UTF-8 text as bytes (a `status --json` page straight from the store): the same
 * bytes, uncopied, when nothing needs hiding; otherwise the redacted text encoded again.
 * `tokenFree` as TaskJsonPage's: the token-shape scan is skipped and only secret values are
 * looked for, byte by byte, without decoding 40 MB into a string first.
 */
export function redactBytes(
  bytes: Uint8Array,
  tokenFree: boolean,
  env: NodeJS.ProcessEnv = process.env,
): Uint8Array {
  if (bytes.length < SHORTEST_REDACTABLE) return bytes;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (tokenFree) {
    if (!secretsOf(env).some((s) => view.includes(s))) return bytes;
  }
  const text = view.toString("utf8");
  const out = tokenFree ? redactSecretValues(text, env) : redactSecrets(text, env);
  return out === text ? bytes : Buffer.from(out, "utf8");
}
