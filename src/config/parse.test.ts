import { describe, expect, test } from "vitest";
import { parseConfig as parse, configProblems as problems } from "../../test/helpers/config-text.js";
import { parseSeverity } from "../findings/severity.js";
import { parseDuration } from "../util/duration.js";

describe("parseConfigText", () => {
  test("reads every section of a full config", () => {
    const layer = parse(`
agent "implementer" backend="claude-code" model="claude-sonnet-4-5" timeout="1h30m" {
    args "--verbose" "--x"
    env { FOO "bar" }
}
agent "demo" backend="command" command="node" "./agent.mjs" "plain.mjs"
agent "scripted" backend="scripted" script="./agents/impl.mjs"
defaults {
    workflow "implement-review"
    max-cycles 4
    blocking-severity "major"
    budget usd=2.5 tokens=1000
    followups #true
    findings-token-budget 5000
    base-branch "main"
}
gate "test" run="npm test" timeout="2m"
worktrees "~/trees"
price "m1" input=1.25 output=10 cache-read=0.125
database "./state.db"
`);
    expect(layer.agents[0]).toMatchObject({
      name: "implementer",
      backend: "claude-code",
      model: "claude-sonnet-4-5",
      timeoutMs: 90 * 60_000,
      args: ["--verbose", "--x"],
      env: { FOO: "bar" },
    });
    expect(layer.agents[1]?.command).toEqual(["node", "/repo/agent.mjs", "plain.mjs"]);
    expect(layer.agents[2]?.script).toBe("/repo/agents/impl.mjs");
    expect(layer.defaults).toEqual({
      workflow: "implement-review",
      maxCycles: 4,
      blockingSeverity: "P1",
      budget: { usd: 2.5, tokens: 1000 },
      followups: true,
      findingsTokenBudget: 5000,
      baseBranch: "main",
    });
    expect(layer.gates).toMatchObject([{ name: "test", run: "npm test", timeoutMs: 120_000 }]);
    expect(layer.worktrees).toBe("/home/u/trees");
    expect(layer.prices).toEqual({ m1: { inputPerM: 1.25, outputPerM: 10, cacheReadPerM: 0.125 } });
    expect(layer.database).toBe("/repo/state.db");
  });

  test("github: the one-line SPEC form and the block form mean the same", () => {
    const line = parse(
      'github repo="acme/shop" allow-authors="alice" "bob" bots="cr[bot]" max-rework-cycles=1 comment-timeout="45s" draft=#true',
    ).github;
    const block = parse(`github {
  repo "acme/shop"
  allow-authors "alice" "bob"
  bots "cr[bot]"
  max-rework-cycles 1
  comment-timeout "45s"
  draft #true
}`).github;
    const expected = {
      repo: "acme/shop",
      allowAuthors: ["alice", "bob"],
      bots: ["cr[bot]"],
      maxReworkCycles: 1,
      commentTimeoutMs: 45_000,
      draft: true,
    };
    expect(line).toMatchObject(expected);
    expect(block).toMatchObject(expected);
  });

  test("an unknown key names its exact place and suggests the near miss", () => {
    expect(problems("defaults {\n    max-cycle 3\n}\n")).toEqual([
      "/repo/fixpoint.kdl:2:5: unknown field `max-cycle` in `defaults` (did you mean `max-cycles`?)",
    ]);
    expect(problems('gate "t" run="x" timout="1m"')).toEqual([
      "/repo/fixpoint.kdl:1:18: unknown property `timout` on `gate` (did you mean `timeout`?)",
    ]);
    expect(problems('\n\n  databse "sqlite"')).toEqual([
      "/repo/fixpoint.kdl:3:3: unknown setting `databse` (did you mean `database`?)",
    ]);
  });

  test("malformed KDL is reported where the parser found it", () => {
    // An unterminated string runs to the end of the input, which is where the parser notices.
    expect(problems('agent "a" backend="codex"\ngate "t" run="unterminated\n')).toEqual([
      "/repo/fixpoint.kdl:3:1: invalid KDL: Unexpected EOF inside string",
    ]);
    expect(problems('agent "a" flag=true\n')[0]).toMatch(
      /^\/repo\/fixpoint\.kdl:1:20: invalid KDL: Invalid keyword "true"/,
    );
  });

  test("bad values point at the value", () => {
    expect(problems('agent "a" backend="codex" timeout="30 minutes"')).toEqual([
      '/repo/fixpoint.kdl:1:35: `timeout` must be a duration with a unit, such as "30s", "10m" or "1h30m", got "30 minutes"',
    ]);
    expect(problems('agent "a" timeout=30')[0]).toContain("1:19: `timeout` must be a duration");
    expect(problems('agent "a" backend="claud-code"')).toEqual([
      '/repo/fixpoint.kdl:1:19: `backend` must be one of command, scripted, claude-code, codex, pi, anthropic, openai, got "claud-code" (did you mean `claude-code`?)',
    ]);
    expect(problems("defaults {\n  max-cycles -1\n}")[0]).toBe(
      "/repo/fixpoint.kdl:2:14: `max-cycles` must be a whole number ≥ 1, got -1",
    );
    expect(problems('price "m" input=-1 output=2')[0]).toContain("1:17: `input` must be a number ≥ 0");
    expect(problems('defaults {\n  followups "yes"\n}')[0]).toContain(
      "2:13: `followups` must be #true or #false",
    );
    expect(problems('github repo="not a repo"')[0]).toContain('1:13: `repo` must look like "owner/name"');
    expect(problems('database "mysql://x"')[0]).toContain('1:10: unsupported database "mysql://x"');
    // Only what the store can open: a SQLite file is named *.db (store/open.ts); U+FFFD is what a
    // lone surrogate becomes in a UTF-8 file.
    expect(problems('database "\ufffdsqlite"')[0]).toContain('1:10: unsupported database "\ufffdsqlite"');
    expect(problems('database "./state"')[0]).toContain("a SQLite file's name ends in .db");
    expect(parse('database "sqlite:./state.db"').database).toBe("/repo/state.db");
  });

  test("duplicates are errors at the second occurrence", () => {
    expect(problems('agent "a" backend="codex"\nagent "a" model="m"')).toEqual([
      '/repo/fixpoint.kdl:2:1: `agent "a"` is given twice in this file',
    ]);
    expect(problems('gate "t" run="a" { run "b"; }')).toEqual([
      '/repo/fixpoint.kdl:1:20: `run` is set twice in `gate "t"`',
    ]);
    expect(problems("defaults\ndefaults")).toEqual([
      "/repo/fixpoint.kdl:2:1: `defaults` is given twice in this file",
    ]);
  });

  test("collects every problem in the file at once", () => {
    const all = problems('agent "a" modle="x"\nfoo 1\ngate "g" run=3');
    expect(all).toHaveLength(3);
    expect(all.map((p) => p.split(": ")[0])).toEqual([
      "/repo/fixpoint.kdl:1:11",
      "/repo/fixpoint.kdl:2:1",
      "/repo/fixpoint.kdl:3:14",
    ]);
  });

  test("structure errors: missing names, stray arguments, env values", () => {
    expect(problems('agent backend="codex"')[0]).toContain("1:1: `agent` needs its name");
    expect(problems('gate "t" "extra" run="x"')[0]).toContain('1:10: unexpected argument to `gate "t"`');
    expect(problems('agent "a" { env { N 1; } }')[0]).toContain(
      "1:19: `N` in `env` needs exactly one string value",
    );
    expect(problems('price "m" input=1')[0]).toContain("1:1: `price` needs `output=`");
  });
});

describe("values", () => {
  test("durations need units and add up their parts", () => {
    expect(parseDuration("500ms")).toBe(500);
    expect(parseDuration("1h30m")).toBe(5_400_000);
    expect(parseDuration("1.5s")).toBe(1500);
    expect(parseDuration("30")).toBeNull();
    expect(parseDuration("m")).toBeNull();
    expect(parseDuration("-5m")).toBeNull();
  });

  test("severity aliases map onto the P-scale", () => {
    expect(
      ["critical", "high", "major", "medium", "minor", "low", "nit", "trivial", "p2"].map(parseSeverity),
    ).toEqual(["P0", "P1", "P1", "P2", "P2", "P3", "P3", "P3", "P2"]);
    expect(parseSeverity("P5")).toBeNull();
  });
});
