import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git } from "../../helpers/cli.js";
import { claudeCase, codexCase, piCase } from "../cli-cases.js";
import { type FakeModel, type Reply, startFakeModel } from "../fake-model/server.js";
import { clis, warmUp } from "./clis.js";
import { alive, groupMembers, watchProcesses } from "./procs.js";
import {
  addTask,
  createProject,
  type E2EProject,
  fixpoint,
  fixpointJson,
  loseSession,
  type WorkflowCase,
} from "./project.js";
import {
  claudeReportedCost,
  type FindingJson,
  reportedUsage,
  type ShowJson,
  stageUsage,
} from "./show-json.js";
import { agentTime, type Timing, timingLine, versionOf, writeTimingsDoc } from "./timings.js";
import { FILE, FINDING, workflowScript } from "./workflow-script.js";

/**
 * The whole loop end to end: the real `fixpoint` binary runs `implement-review` tasks (one
 * reviewer) in a real git repository, with the REAL agent CLIs (pinned, installed by
 * cli-install.ts) against the fake model server. CLIs run one after another (2 cores).
 */

const CASES: WorkflowCase[] = [
  { cli: claudeCase, model: "claude-sonnet-4-5" },
  { cli: codexCase, model: "gpt-5" },
  { cli: piCase, model: "fake/fake-model" },
];

/** Room for a loaded CI machine (2 cores, other suites in parallel); a task takes ~5 s alone. */
const SLOW = { timeout: 180_000 };

let fake: FakeModel;
const faults = new Map<string, Reply>();
const timings: Timing[] = [];

beforeAll(async () => {
  // No skip: when the CLIs cannot be installed (no cache, no registry), every test fails.
  await warmUp();
  fake = await startFakeModel(workflowScript(faults));
}, 30 * 60_000);

afterAll(async () => {
  await fake?.close();
  if (timings.length === CASES.length) writeTimingsDoc(timings);
});

const show = (p: E2EProject, id: string) => fixpointJson<ShowJson>(p, ["show", id]);
const branchLog = (p: E2EProject, branch: string) =>
  git(p.root, "log", "--format=%s", `main..${branch}`).trim().split("\n");
const fileAt = (p: E2EProject, branch: string) => git(p.root, "show", `${branch}:${FILE}`);
/** The command's output, shown when an assertion on it fails. */
const said = (r: { stdout: string; stderr: string }) => `${r.stdout}\n${r.stderr}`;

describe.each(CASES)("$cli.name: whole tasks through the real fixpoint binary", (c: WorkflowCase) => {
  let created: Promise<E2EProject> | undefined;
  const project = () => {
    created ??= clis().then((bins) => createProject(c, bins[c.cli.name], fake.url));
    return created;
  };

  it(
    "implements, reviews, fixes and approves; commits, registry, artifacts, tokens and cost add up",
    SLOW,
    async () => {
      const p = await project();
      const id = await addTask(
        p,
        "Write the greeting file.\nIMPL=draft-greeting APPROVE=fixed-1 SCENARIO=main",
      );
      const from = fake.requests.length;
      const ran = await fixpoint(p, ["work", id]);
      const requests = fake.requests.slice(from);
      expect(ran.code, said(ran)).toBe(0);
      expect(ran.stderr).toBe("");
      expect(ran.stdout).toMatch(/completed: APPROVED after 1 fix cycle/);

      const s = await show(p, id);
      expect(s.task.status).toBe("completed");
      expect(s.task.final_verdict).toBe("APPROVED");
      const branch = s.task.branch ?? "";
      expect(branchLog(p, branch)).toEqual([
        "Address review feedback (cycle 1)",
        "Write the greeting file. — implementation",
      ]);
      expect(fileAt(p, branch)).toBe("fixed-1");
      // The model's tool wrote the draft first: the implementation commit holds it.
      expect(git(p.root, "show", `${branch}~1:${FILE}`)).toBe("draft-greeting");
      const rules = requests.map((r) => r.rule);
      expect(rules).toEqual(
        expect.arrayContaining(["implement-write", "implement-done", "review", "fix-write", "fix-report"]),
      );

      const findings = await fixpointJson<FindingJson[]>(p, ["findings", id]);
      expect(findings).toHaveLength(1);
      const fixCommit = git(p.root, "rev-parse", branch).trim();
      expect(findings[0]).toMatchObject({
        id: "F-1",
        severity: "P1",
        status: "resolved",
        title: FINDING.title,
        file: FILE,
      });
      expect(findings[0]?.attempts).toEqual([
        {
          cycle: 1,
          status: "fixed",
          justification: `${FILE} now holds fixed-1`,
          commit: fixCommit,
          rejection: null,
        },
      ]);

      expect(s.artifacts.reviews.length).toBeGreaterThanOrEqual(2);
      for (const path of s.artifacts.reviews) expect(existsSync(path)).toBe(true);
      const first = readFileSync(s.artifacts.reviews[0] ?? "", "utf8");
      expect(first).toContain(FINDING.title);

      // Tokens per stage add up to what the fake server reported; cost is the CLI's own (Claude,
      // pi) or fixpoint's from the price table (Codex).
      const usage = reportedUsage(requests);
      expect(stageUsage(s.stages)).toEqual(usage);
      expect(s.totals.tokens).toBe(usage.input + usage.output + usage.cacheRead + usage.cacheWrite);
      const reported = c.cli.name === "claude-code" ? claudeReportedCost(p.root, id) : undefined;
      expect(s.totals.cost_usd).toBeGreaterThan(0);
      expect(s.totals.cost_usd).toBeCloseTo(c.cli.expectedCost(usage, reported), 9);
      for (const stage of s.stages.filter((x) => x.kind === "agent" || x.kind === "fix")) {
        expect(stage.session_id).toMatch(/^[0-9a-f-]{36}$/);
      }

      const t = agentTime(s.stages);
      const timing = {
        backend: c.cli.name,
        version: versionOf(c.cli.name),
        wallMs: ran.ms,
        agentMs: t.ms,
        agentStages: t.count,
      };
      timings.push(timing);
      console.log(timingLine(timing));
    },
  );

  it("resume continues the fixer's session: the model sees the earlier transcript", SLOW, async () => {
    const p = await project();
    const id = await addTask(
      p,
      "Write the greeting file.\nIMPL=draft-greeting APPROVE=fixed-2 SCENARIO=resume",
      ["--max-cycles", "1"],
    );
    const first = await fixpoint(p, ["work", id]);
    expect(first.code, said(first)).toBe(1);
    const before = await show(p, id);
    expect(before.task.final_verdict).not.toMatch(/^APPROVED/);
    expect(before.runs[0]?.stored_review_issues).toBe(1);
    const firstFix = before.stages.find((x) => x.kind === "fix");
    expect(firstFix?.session_id).toBeTruthy();

    const from = fake.requests.length;
    const resumed = await fixpoint(p, ["resume", id]);
    expect(resumed.stdout).toContain("Using review follow-up for resume: 1 findings");
    expect(resumed.code, said(resumed)).toBe(0);
    const after = await show(p, id);
    expect(after.task.final_verdict).toBe("APPROVED");
    const secondFix = after.stages.filter((x) => x.kind === "fix").at(-1);
    expect(secondFix?.run_id).not.toBe(firstFix?.run_id);
    expect(secondFix?.session_id).toBe(firstFix?.session_id);
    // The follow-up turn carried the fixer's first turn: its prompt and its write of fixed-1.
    const followup = fake.requests.slice(from).find((r) => r.rule === "fix-write");
    expect(followup?.conversation?.lastUserText).toContain("ended before the reviewers approved");
    expect(followup?.conversation?.transcript).toContain("You are fixing review findings");
    expect(fileAt(p, after.task.branch ?? "")).toBe("fixed-2");
  });

  it(
    "an HTTP 400 fails with a clear reason; on resume a lost session falls back to a fresh one",
    SLOW,
    async () => {
      const p = await project();
      const id = await addTask(p, "Write the greeting file.\nIMPL=fixed-7 APPROVE=fixed-7 SCENARIO=stale");
      faults.set("stale", { error: { status: 400, message: "prompt is malformed" } });
      const failed = await fixpoint(p, ["work", id]);
      faults.delete("stale");
      expect(failed.code, said(failed)).toBe(1);
      const s = await show(p, id);
      expect(s.task.reason).toMatch(/^implement failed: API error 400: .*prompt is malformed/);
      const text = await fixpoint(p, ["show", id]);
      expect(text.stdout).toMatch(/implement failed: API error 400: .*prompt is malformed/);
      const lost = s.stages.find((x) => x.stage === "implement")?.session_id ?? "";
      expect(lost).toMatch(/^[0-9a-f-]{36}$/);

      // The CLI's own record of the session is gone (cleared cache, another machine).
      expect(loseSession(p, lost).length).toBeGreaterThan(0);
      const resumed = await fixpoint(p, ["resume", id]);
      expect(resumed.stdout).toContain(
        `session ${lost} of implementer could not be resumed; started a fresh one`,
      );
      expect(resumed.code, said(resumed)).toBe(0);
      const after = await show(p, id);
      expect(after.task.final_verdict).toBe("APPROVED");
      const fresh = after.stages.filter((x) => x.stage === "implement").at(-1);
      expect(fresh?.outcome).toBe("success");
      expect(fresh?.session_id).toMatch(/^[0-9a-f-]{36}$/);
      expect(fresh?.session_id).not.toBe(lost);
      const logs = await fixpoint(p, ["logs", id, "--json"]);
      const events = logs.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { type: string; data: { session?: string } });
      expect(events.find((e) => e.type === "agent.session_lost")?.data.session).toBe(lost);
    },
  );

  it("an HTTP 500 fails with a clear reason after the backend's retries", SLOW, async () => {
    const p = await project();
    const id = await addTask(p, "Write the greeting file.\nIMPL=x APPROVE=x SCENARIO=e500");
    faults.set("e500", { error: { status: 500, message: "the model fell over" } });
    const ran = await fixpoint(p, ["work", id]);
    faults.delete("e500");
    expect(ran.code, said(ran)).toBe(1);
    const s = await show(p, id);
    // Codex words a 5xx without its status ("high demand"): still named a server error.
    expect(s.task.reason).toMatch(/^implement failed: API error (500|5xx): /);
    expect(s.stages.find((x) => x.stage === "implement")?.failure_class).toBe("agent_error");
  });

  it("a hung model ends at the stage timeout (5s) with the agent's process group gone", SLOW, async () => {
    const p = await project();
    const id = await addTask(p, "Write the greeting file.\nIMPL=x APPROVE=x SCENARIO=hang", [
      "--agent",
      "impl-hang",
    ]);
    faults.set("hang", { hang: true });
    const watch = watchProcesses(`/${id}`, join(p.env.FIXPOINT_HOME ?? "", "worktrees"));
    const ran = await fixpoint(p, ["work", id]);
    const seen = watch.stop();
    faults.delete("hang");
    expect(ran.code, said(ran)).toBe(1);
    const s = await show(p, id);
    expect(s.task.reason).toMatch(/^implement failed: timed out after 5s/);
    expect(s.stages.find((x) => x.stage === "implement")?.failure_class).toBe("timeout");
    expect(seen.length).toBeGreaterThan(0);
    for (const proc of seen) {
      expect(alive(proc.pid)).toBe(false);
      expect(alive(proc.pgid, true), groupMembers(proc.pgid).join("\n")).toBe(false);
    }
  });
});
