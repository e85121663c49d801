import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, isolatedEnv, tempDir } from "../../helpers/cli.js";
import { claudeCase, codexCase, piCase } from "../cli-cases.js";
import { type CliName, PINNED } from "../cli-install.js";
import { type FakeModel, startFakeModel } from "../fake-model/server.js";
import { clis, warmUp } from "./clis.js";
import { type E2EProject, fixpoint } from "./project.js";

/**
 * `fixpoint doctor` run by the real binary: the real CLIs (pinned) and the HTTP backends make
 * their one-token round trip to the fake model server; broken settings give a ✗ line, what to
 * do about it, and exit code 3.
 */

/** Room for a loaded CI machine (2 cores, other suites in parallel); a task takes ~5 s alone. */
const SLOW = { timeout: 180_000 };

let fake: FakeModel;
type Bins = Record<CliName, string>;

beforeAll(async () => {
  await warmUp();
  fake = await startFakeModel({
    rules: [
      {
        name: "refuse",
        when: (c) => c.model === "refuse-me",
        reply: { error: { status: 401, message: "invalid x-api-key" } },
      },
    ],
    fallback: { text: "OK", usage: { input: 40, output: 1, cacheRead: 0, cacheWrite: 0 } },
  });
}, 30 * 60_000);

afterAll(async () => {
  await fake?.close();
});

const q = (s: string): string => JSON.stringify(s);
const re = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

async function project(kdl: (url: string, bins: Bins) => string[]): Promise<E2EProject> {
  const bins = await clis();
  const base = tempDir("fixpoint-e2e-doctor-");
  const root = join(base, "repo");
  const cliHome = join(base, "cli");
  mkdirSync(join(base, "home"), { recursive: true });
  mkdirSync(cliHome, { recursive: true });
  git(base, "init", "-q", "-b", "main", root);
  writeFileSync(join(root, "fixpoint.kdl"), `${kdl(fake.url, bins).join("\n")}\n`);
  const env = isolatedEnv(base, {
    ...claudeCase.env(fake.url, cliHome),
    ...codexCase.env(fake.url, cliHome),
    ...piCase.env(fake.url, cliHome),
    // codex and pi found on PATH; claude through the agent's configured path.
    PATH: [dirname(bins.codex), dirname(bins.pi), process.env.PATH].join(":"),
    OPENAI_API_KEY: "test",
  });
  return { root, env, cliHome };
}

const codexArgs = (url: string) => `{\n    args ${codexCase.extraArgs(url).map(q).join(" ")}\n}`;

/** Every backend, pointed at the fake server. */
const healthy = (url: string, bins: Bins) => [
  `agent "implementer" backend="claude-code" model="claude-sonnet-4-5" command=${q(bins["claude-code"])}`,
  `agent "reviewer" backend="codex" model="gpt-5" ${codexArgs(url)}`,
  `agent "fixer" backend="pi" model="fake/fake-model"`,
  `agent "api-anthropic" backend="anthropic" model="claude-sonnet-4-5" base-url=${q(url)}`,
  `agent "api-openai" backend="openai" model="gpt-5" base-url=${q(`${url}/v1`)}`,
];

const doctorPrompts = (from: number) =>
  fake.requests
    .slice(from)
    .filter((r) => r.conversation?.lastUserText.includes("connectivity check by `fixpoint doctor`"));

describe("fixpoint doctor", () => {
  it("checks git, the config, the store and every agent, with a round trip to each", SLOW, async () => {
    const p = await project(healthy);
    const bins = await clis();
    const from = fake.requests.length;
    const r = await fixpoint(p, ["doctor"]);
    console.log(`fixpoint doctor\n${r.stdout}`);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/✓ git +git version \d/);
    expect(r.stdout).toMatch(/✓ config +.*fixpoint\.kdl · 5 agents · 0 gates/);
    expect(r.stdout).toMatch(/✓ store +sqlite .*fixpoint\.db · schema \d+ \(current\) · writable/);
    expect(r.stdout).toMatch(
      new RegExp(
        `✓ agent implementer +claude-code · ${re(bins["claude-code"])} · ${re(PINNED["claude-code"].version)} \\(Claude Code\\) · model claude-sonnet-4-5 · round trip [\\d.]+s, 41 tokens`,
      ),
    );
    expect(r.stdout).toMatch(
      new RegExp(
        `✓ agent reviewer +codex · ${re(bins.codex)} · codex-cli ${re(PINNED.codex.version)} · model gpt-5 · round trip [\\d.]+s, 41 tokens`,
      ),
    );
    expect(r.stdout).toMatch(
      new RegExp(
        `✓ agent fixer +pi · ${re(bins.pi)} · ${re(PINNED.pi.version)} · model fake/fake-model · round trip [\\d.]+s, 41 tokens · \\$0\\.0001`,
      ),
    );
    expect(r.stdout).toMatch(
      /✓ agent api-anthropic +anthropic · http:\/\/127\.0\.0\.1:\d+ · model claude-sonnet-4-5 · round trip [\d.]+s, 41 tokens/,
    );
    expect(r.stdout).toMatch(
      /✓ agent api-openai +openai · http:\/\/127\.0\.0\.1:\d+\/v1 · model gpt-5 · round trip [\d.]+s, 41 tokens/,
    );
    expect(r.stdout).toContain("All checks passed.");
    // One round trip per agent, each on its own wire API.
    const apis = doctorPrompts(from)
      .map((x) => x.conversation?.api)
      .sort();
    expect(apis).toEqual(["anthropic", "anthropic", "anthropic", "responses", "responses"]);
  });

  it("--offline checks binaries and versions without calling any model", SLOW, async () => {
    const p = await project(healthy);
    const bins = await clis();
    const from = fake.requests.length;
    const r = await fixpoint(p, ["doctor", "--offline"]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      new RegExp(
        `✓ agent reviewer +codex · ${re(bins.codex)} · codex-cli ${re(PINNED.codex.version)} · model gpt-5 · round trip not run \\(--offline\\)`,
      ),
    );
    expect(fake.requests.length).toBe(from);
  });

  it("names what is broken and how to fix it, and exits 3", SLOW, async () => {
    const p = await project((url, bins) => [
      ...healthy(url, bins).slice(0, 3),
      `agent "gone" backend="codex" command="/nonexistent/bin/codex"`,
      `agent "bad-key" backend="anthropic" model="refuse-me" base-url=${q(url)}`,
    ]);
    const r = await fixpoint(p, ["doctor", "--json"]);
    expect(r.code, r.stdout + r.stderr).toBe(3);
    const out = JSON.parse(r.stdout) as {
      ok: boolean;
      checks: { name: string; status: string; detail: string; fix?: string }[];
    };
    expect(out.ok).toBe(false);
    const by = new Map(out.checks.map((c) => [c.name, c]));
    expect(by.get("agent gone")).toEqual({
      name: "agent gone",
      status: "fail",
      detail: "codex · /nonexistent/bin/codex does not exist or is not executable",
      fix: `install it (npm install -g @openai/codex) or set the agent's path: agent "gone" command="/path/to/codex"`,
    });
    expect(by.get("agent bad-key")).toMatchObject({
      status: "fail",
      fix: "check the credentials the agent uses: ANTHROPIC_API_KEY or ANTHROPIC_AUTH_TOKEN",
    });
    expect(by.get("agent bad-key")?.detail).toMatch(/round trip failed: auth failed: invalid x-api-key$/);
    expect(by.get("agent reviewer")?.status).toBe("ok");
  });

  it("reports a broken config with its file, line and column, and exits 3", SLOW, async () => {
    const p = await project(() => [`agent "implementer" backend="claude-code" timout="5m"`]);
    const r = await fixpoint(p, ["doctor", "--offline"]);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/✓ git/);
    expect(r.stdout).toMatch(/✗ config +.*fixpoint\.kdl:1:\d+: .*timout.*did you mean `timeout`/);
    expect(r.stdout).toContain("1 problem to fix");
  });
});
