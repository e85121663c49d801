import { describe, expect, it } from "vitest";
import { agentEnvironment } from "./env.js";

const base: NodeJS.ProcessEnv = {
  PATH: "/usr/bin",
  GITHUB_TOKEN: "ghp_secret",
  GH_TOKEN: "gho_secret",
  ANTHROPIC_BASE_URL: "http://127.0.0.1:9999",
  ANTHROPIC_API_KEY: "sk-ant-x",
  CLAUDE_CONFIG_DIR: "/tmp/claude",
  OPENAI_API_KEY: "sk-x",
  CODEX_HOME: "/tmp/codex",
  PI_CODING_AGENT_DIR: "/tmp/pi",
  HTTPS_PROXY: "http://proxy:3128",
  FIXPOINT_HOME: "/tmp/fp",
  FIXPOINT_DATABASE_URL: "postgres://fix:pw@db/fp",
  FIXPOINT_GITHUB_TOKEN: "ghp_other",
  UNDEFINED_ONE: undefined,
};

describe("agentEnvironment", () => {
  it("withholds fixpoint's secrets and passes vendor variables unchanged", () => {
    const env = agentEnvironment(base, {});
    expect(env.GITHUB_TOKEN).toBeUndefined();
    expect(env.GH_TOKEN).toBeUndefined();
    expect(env.FIXPOINT_DATABASE_URL).toBeUndefined();
    expect(env.FIXPOINT_GITHUB_TOKEN).toBeUndefined();
    expect(env).toMatchObject({
      PATH: "/usr/bin",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:9999",
      ANTHROPIC_API_KEY: "sk-ant-x",
      CLAUDE_CONFIG_DIR: "/tmp/claude",
      OPENAI_API_KEY: "sk-x",
      CODEX_HOME: "/tmp/codex",
      PI_CODING_AGENT_DIR: "/tmp/pi",
      HTTPS_PROXY: "http://proxy:3128",
      FIXPOINT_HOME: "/tmp/fp",
    });
    expect("UNDEFINED_ONE" in env).toBe(false);
  });

  it("keeps a database URL without a password", () => {
    const env = agentEnvironment({ FIXPOINT_DATABASE_URL: "postgres://fix@db/fp" }, {});
    expect(env.FIXPOINT_DATABASE_URL).toBe("postgres://fix@db/fp");
  });

  it("passes the GitHub token when configured, and the agent's env wins", () => {
    expect(agentEnvironment(base, {}, { passGithubToken: true }).GITHUB_TOKEN).toBe("ghp_secret");
    const env = agentEnvironment(base, { GITHUB_TOKEN: "explicit", CODEX_HOME: "/elsewhere" });
    expect(env.GITHUB_TOKEN).toBe("explicit");
    expect(env.CODEX_HOME).toBe("/elsewhere");
  });

  it("does not modify its input", () => {
    const copy = { ...base };
    agentEnvironment(base, { X: "1" });
    expect(base).toEqual(copy);
  });

  it("gives a new object each call, the same variables for the same base, whatever an earlier caller added", () => {
    const first = agentEnvironment(base, { A: "1" });
    first.PATH = "/changed";
    first.ADDED = "x";
    const second = agentEnvironment(base, {});
    expect(second).not.toBe(first);
    expect(second.PATH).toBe("/usr/bin");
    expect("ADDED" in second || "A" in second).toBe(false);
    expect(agentEnvironment(base, {}, { passGithubToken: true }).GITHUB_TOKEN).toBe("ghp_secret");
    expect(agentEnvironment(base, {}).GITHUB_TOKEN).toBeUndefined();
  });

  it("reads process.env afresh on every call", () => {
    const name = "FIXPOINT_ENV_TEST_VALUE";
    process.env[name] = "one";
    try {
      expect(agentEnvironment(process.env, {})[name]).toBe("one");
      process.env[name] = "two";
      expect(agentEnvironment(process.env, {})[name]).toBe("two");
    } finally {
      delete process.env[name];
    }
  });
});
