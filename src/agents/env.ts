/**
 * The environment an agent process gets (SPEC §10, §13): the user's own, so vendor variables
 * (`ANTHROPIC_*`, `CLAUDE_*`, `OPENAI_*`, `CODEX_HOME`, `PI_*`, proxies) work as usual, minus
 * fixpoint's own secrets, plus the agent's configured `env`.
 */

/** fixpoint's GitHub credentials: an agent with them could push or comment as fixpoint. */
const GITHUB_TOKEN_VARS = ["GITHUB_TOKEN", "GH_TOKEN", "GH_ENTERPRISE_TOKEN", "GITHUB_ENTERPRISE_TOKEN"];

const SECRET_NAME = /(TOKEN|SECRET|KEY|PASSWORD|PASSWD|CREDENTIAL)/i;

/** `scheme://user:password@host`: a URL that carries a password. */
const URL_WITH_PASSWORD = /^[a-z][a-z0-9+.-]*:\/\/[^\s/@:]*:[^\s/@]+@/i;

export interface AgentEnvironmentOptions {
  /** Pass `GITHUB_TOKEN`/`GH_TOKEN` on to the agent (off by default). */
  passGithubToken?: boolean;
}

/** Whether `name=value` is one of fixpoint's own secrets, withheld from agents. */
export function isFixpointSecret(name: string, value: string): boolean {
  if (!name.startsWith("FIXPOINT_")) return false;
  return SECRET_NAME.test(name) || URL_WITH_PASSWORD.test(value);
}

/**
 * `base` filtered, per base object and GitHub-token choice: a worker passes the same snapshot of
 * its environment to every agent (app/engine-deps.ts), and filtering it for each agent call was a
 * tenth of a no-op stage's time through the CLI (issue 10). `process.env` itself is never
 * remembered: it can change.
 */
const filteredBases = [
  new WeakMap<NodeJS.ProcessEnv, NodeJS.ProcessEnv>(),
  new WeakMap<NodeJS.ProcessEnv, NodeJS.ProcessEnv>(),
];

function filteredBase(base: NodeJS.ProcessEnv, passGithubToken: boolean): NodeJS.ProcessEnv {
  const cache = filteredBases[passGithubToken ? 1 : 0] as WeakMap<NodeJS.ProcessEnv, NodeJS.ProcessEnv>;
  const known = cache.get(base);
  if (known !== undefined) return known;
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined) continue;
    if (!passGithubToken && GITHUB_TOKEN_VARS.includes(name)) continue;
    if (isFixpointSecret(name, value)) continue;
    env[name] = value;
  }
  if (base !== process.env) cache.set(base, env);
  return env;
}

/** A new object each call: the caller may add to it. */
export function agentEnvironment(
  base: NodeJS.ProcessEnv,
  extra: Record<string, string>,
  opts: AgentEnvironmentOptions = {},
): NodeJS.ProcessEnv {
  // The agent's configured env wins: it is how a config deliberately passes a secret on.
  return Object.assign({}, filteredBase(base, opts.passGithubToken === true), extra);
}
