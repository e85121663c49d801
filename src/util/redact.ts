/**
 * Secret redaction for logs, events and artifacts (SPEC §13). Two nets: the values of
 * secret-looking environment variables, and the shapes of well-known tokens, so a key that
 * never passed through our environment (pasted into a prompt, printed by an agent) is caught too.
 */

export const REDACTED = "[REDACTED]";

const SECRET_NAME = /(TOKEN|SECRET|KEY|PASSWORD)/i;
const MIN_SECRET_LENGTH = 8;

/** Token shapes; each replaces the whole match unless it keeps a prefix group ($1). */
const TOKEN_PATTERNS: { re: RegExp; keep?: boolean }[] = [
  // Anthropic keys are short after the prefix in test fixtures; the generic `sk-` shape needs 16.
  { re: /\bsk-ant-[A-Za-z0-9_-]{8,}/g },
  { re: /\bsk-[A-Za-z0-9_-]{16,}/g },
  { re: /\bgh[pousr]_[A-Za-z0-9]{20,}/g },
  { re: /\bgithub_pat_[A-Za-z0-9_]{20,}/g },
  { re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { re: /(\bBearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi, keep: true },
  { re: /(\bAuthorization:\s*(?:token|Basic)\s+)[A-Za-z0-9._~+/=-]{8,}/gi, keep: true },
  // `postgres://user:password@host`, `https://x:token@github.com`: keep the user, hide the password.
  { re: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:)[^\s/@]+(?=@)/gi, keep: true },
];

const envSecretsCache = new WeakMap<NodeJS.ProcessEnv, string[]>();

/** Values of secret-looking variables, longest first so a secret containing another goes whole. */
function envSecrets(env: NodeJS.ProcessEnv): string[] {
  const cached = envSecretsCache.get(env);
  if (cached) return cached;
  const values = new Set<string>();
  for (const [name, value] of Object.entries(env)) {
    if (value !== undefined && value.length >= MIN_SECRET_LENGTH && SECRET_NAME.test(name)) {
      values.add(value);
    }
  }
  const sorted = [...values].sort((a, b) => b.length - a.length);
  // Cached per env object; `process.env` changes rarely and fixpoint itself never changes it.
  if (env !== process.env) envSecretsCache.set(env, sorted);
  return sorted;
}

/** Replaces secrets in `text` with `[REDACTED]`. `env` defaults to `process.env`. */
export function redactSecrets(text: string, env: NodeJS.ProcessEnv = process.env): string {
  let out = text;
  for (const secret of envSecrets(env)) {
    if (out.includes(secret)) out = out.split(secret).join(REDACTED);
  }
  for (const { re, keep } of TOKEN_PATTERNS) {
    out = out.replace(re, keep ? `$1${REDACTED}` : REDACTED);
  }
  return out;
}
