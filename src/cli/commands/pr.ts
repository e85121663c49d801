import { existsSync } from "node:fs";
import type { Command } from "commander";
import type { GithubConfig } from "../../config/types.js";
import type { GithubClient } from "../../domain/github.js";
import { isApproval, type Task } from "../../domain/types.js";
import { FixpointError } from "../../errors.js";
import { systemClock } from "../../util/clock.js";
import { createProcessRunner } from "../../util/process-runner.js";
import type { Io } from "../io.js";
import { openProject, type Project } from "../project.js";
import { requireTask } from "../task-ref.js";
import { work } from "./work.js";

/** The GitHub side of a project: its config, a client and the `origin` remote. */
export interface ProjectGithub {
  config: GithubConfig;
  client: GithubClient;
  remote: import("../../github/stage/remote.js").GitRemote;
}

export async function projectGithub(project: Project, env: NodeJS.ProcessEnv): Promise<ProjectGithub> {
  const config = project.config.github;
  if (!config) {
    throw new FixpointError(
      "config",
      'GitHub is not configured: add `github repo="owner/name"` to fixpoint.kdl',
    );
  }
  const [{ githubClientFor }, { createGitRemote }] = await Promise.all([
    import("../../github/stage/client.js"),
    import("../../github/stage/remote.js"),
  ]);
  return { config, client: await githubClientFor(config, env), remote: createGitRemote() };
}

export function registerPr(program: Command, io: Io, exit: { code: number }): void {
  const pr = program
    .command("pr")
    .description("pull requests: publish a task, rework review feedback, watch for feedback");
  pr.command("open")
    .description("push the task's branch and open its pull request (or update the open one)")
    .argument("<task>", "task id")
    .action(async (ref: string) => {
      await withProject(io, async (project) => {
        const gh = await projectGithub(project, io.env);
        const task = await requireTask(project.store, ref);
        const { openOrUpdatePull } = await import("../../github/stage/open-pr.js");
        const r = await openOrUpdatePull({
          client: gh.client,
          remote: gh.remote,
          store: project.store,
          task,
          cwd: task.worktreePath && existsSync(task.worktreePath) ? task.worktreePath : project.root,
          findings: await project.store.listFindings(task.id),
          draft: gh.config.draft,
          label: gh.config.label,
          approved: isApproval(task.finalVerdict),
          now: Date.now(),
        });
        if (!r.ok) throw new FixpointError("github", `${task.id}: ${r.reason}`);
        io.out(
          `${r.created ? "opened" : "updated"} PR #${r.pull.number}${r.pull.draft ? " (draft)" : ""}  ${r.pull.url}\n`,
        );
      });
    });
  pr.command("rework")
    .description(
      "address a pull request's review feedback: one rework task per cycle (pr-<n>-cycle-<k>), run now",
    )
    .argument("<number>", "pull request number")
    .option("--queue", "only create the task; a running `fixpoint work` picks it up")
    .action(async (num: string, opts: { queue?: boolean }) => {
      await withProject(io, async (project) => {
        const gh = await projectGithub(project, io.env);
        exit.code = await reworkPull(project, io, gh, parsePr(num), { queue: Boolean(opts.queue) });
      });
    });
  pr.command("watch")
    .description("poll open pull requests labelled for fixpoint and rework those with new feedback")
    .option("--once", "poll once, then stop")
    .option("--interval <seconds>", "seconds between polls", "60")
    .action(async (opts: { once?: boolean; interval: string }) => {
      const interval = Number(opts.interval);
      if (!Number.isFinite(interval) || interval <= 0)
        throw new FixpointError(
          "usage",
          `--interval takes a positive number of seconds, not \`${opts.interval}\``,
        );
      await withProject(io, async (project) => {
        const gh = await projectGithub(project, io.env);
        const { watchPulls } = await import("./pr-watch.js");
        exit.code = await watchPulls(project, io, gh, {
          once: Boolean(opts.once),
          intervalMs: interval * 1000,
        });
      });
    });
}

async function withProject(io: Io, fn: (p: Project) => Promise<void>): Promise<void> {
  const project = await openProject(io.cwd, { env: io.env });
  try {
    await fn(project);
  } finally {
    await project.close();
  }
}

function parsePr(value: string): number {
  const n = Number(value.replace(/^#/, ""));
  if (!Number.isInteger(n) || n <= 0)
    throw new FixpointError("usage", `a pull request number, not \`${value}\``);
  return n;
}

/**
 * `pr rework <n>`: start (or continue) the PR's rework task and run it in the foreground, then
 * file what stayed unresolved as tech-debt issues. Returns the exit code.
 */
export async function reworkPull(
  project: Project,
  io: Io,
  gh: ProjectGithub,
  prNumber: number,
  opts: { queue: boolean },
): Promise<number> {
  const { startRework } = await import("../../github/stage/rework.js");
  const start = await startRework(
    {
      store: project.store,
      client: gh.client,
      remote: gh.remote,
      git: project.git,
      config: { ...project.config, github: gh.config },
      root: project.root,
      runner: createProcessRunner(),
      env: io.env,
      clock: systemClock,
    },
    prNumber,
  );
  if (start.kind === "closed") {
    io.out(`${start.message}\n`);
    return 0;
  }
  if (start.kind === "limit") {
    io.out(`${start.message}\n`);
    if (start.notified) io.out("notify command ran\n");
    if (start.notifyError) io.err(`${start.notifyError}\n`);
    return 1;
  }
  for (const n of start.notices) io.err(`warning: ${n}\n`);
  const task = start.task;
  io.out(
    `${start.created ? "queued" : "continuing"} ${task.id}  PR #${prNumber}  branch ${task.branch ?? "?"}\n`,
  );
  if (task.status === "needs_human" && task.currentStage !== null) {
    const { prepareResume } = await import("./resume.js");
    io.out(`${await prepareResume(project, task)}\n`);
  }
  if (opts.queue) return 0;
  const code = await work(project, io, { ids: [task.id], concurrency: 1, once: true, watch: false });
  if (code === 130) return code;
  return (await afterRework(project, io, gh, task.id)) ?? code;
}

/** After the run: say when the PR closed meanwhile, and file the unresolved findings as issues. */
async function afterRework(
  project: Project,
  io: Io,
  gh: ProjectGithub,
  taskId: string,
): Promise<number | null> {
  const task: Task = await requireTask(project.store, taskId);
  if (task.status === "running" || task.status === "queued") return null;
  const events = await project.store.listEvents(task.id);
  const closed = events.some((e) => e.type === "stage.finished" && e.data.next === "pr_closed");
  if (closed) {
    io.out(
      `PR #${task.meta.prNumber ?? "?"} was merged or closed during the rework; nothing more was pushed\n`,
    );
    return 0;
  }
  const { issuesSummary } = await import("../../github/stage/file-issues.js");
  const r = await fileIssuesOf(project, gh, task);
  if (r.created.length || r.existing.length || r.failed.length) io.out(`tech-debt: ${issuesSummary(r)}\n`);
  return null;
}

/** Files a task's unresolved findings as tech-debt issues (each at most once). */
export async function fileIssuesOf(
  project: Project,
  gh: { client: GithubClient; config: GithubConfig },
  task: Task,
) {
  const { fileTaskIssues } = await import("../../github/stage/file-issues.js");
  return fileTaskIssues({
    client: gh.client,
    store: project.store,
    task,
    findings: await project.store.listFindings(task.id),
    label: gh.config.techDebtLabel,
    followups: project.config.defaults.followups,
    blockingSeverity: project.config.defaults.blockingSeverity,
    now: Date.now(),
  });
}
