import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Command } from "commander";
import { listReviewArtifacts, reviewArtifactPath } from "../../engine/artifacts.js";
import { FixpointError } from "../../errors.js";
import { fenceUntrusted } from "../../findings/fence.js";
import { renderOutstandingFindings } from "../../findings/render.js";
import type { Io } from "../io.js";
import { openProject } from "../project.js";
import { parsePositiveInt, requireTask } from "../task-ref.js";

const LIVE = new Set(["open", "fixed", "deferred"]);

export function registerImprove(program: Command, io: Io): void {
  program
    .command("improve")
    .description(
      "queue a manual improve task on the same branch and worktree, from the last (or named) review and the open findings",
    )
    .argument("<id>", "task id")
    .option("--review <n>", "use the review artifact of this cycle (default: the last one)")
    .option("--max-cycles <n>", "fix cycles for the improve task")
    .action(async (ref: string, opts: { review?: string; maxCycles?: string }) => {
      const project = await openProject(io.cwd, { env: io.env });
      try {
        const { store } = project;
        const origin = await requireTask(store, ref);
        if (origin.status === "running" || origin.status === "queued") {
          throw new FixpointError(
            "usage",
            `${origin.id} is ${origin.status}; improve a task once it has finished`,
          );
        }
        if (!origin.branch)
          throw new FixpointError("usage", `${origin.id} has no branch yet; nothing to improve`);
        const reviews = join(project.dir, "reviews");
        const wanted = parsePositiveInt("--review", opts.review);
        // The latest run's artifact of that cycle (or the latest of all), old-style names included.
        const artifacts = listReviewArtifacts(reviews, origin.id).filter(
          (a) => wanted === undefined || a.cycle === wanted,
        );
        const chosen = artifacts.at(-1);
        if (chosen === undefined && wanted === undefined)
          throw new FixpointError("usage", `${origin.id} has no review artifact in ${reviews}`);
        const artifact = chosen?.path ?? reviewArtifactPath(reviews, origin.id, wanted ?? 0);
        const cycle = chosen?.cycle ?? wanted;
        const review = await readFile(artifact, "utf8").catch(() => {
          throw new FixpointError("usage", `no review artifact ${artifact}`);
        });
        const findings = (await store.listFindings(origin.id)).filter((f) => LIVE.has(f.status));
        const now = Date.now();
        const task = await store.createTask(
          {
            type: "improve",
            title: `Improve ${origin.id}: ${origin.title}`.slice(0, 100),
            prompt: [
              origin.prompt,
              `## The review to address (cycle ${cycle} of ${origin.id})`,
              fenceUntrusted(`review ${origin.id} cycle ${cycle}`, review),
              findings.length
                ? renderOutstandingFindings(findings, {
                    tokenBudget: project.config.defaults.findingsTokenBudget,
                    blockingSeverity: project.config.defaults.blockingSeverity,
                  }).text
                : "",
            ].join("\n\n"),
            workflow: "improve",
            repo: origin.repo,
            baseBranch: origin.baseBranch,
            maxCycles: parsePositiveInt("--max-cycles", opts.maxCycles) ?? origin.maxCycles,
            budget: origin.budget,
            agents: origin.agents,
            parentId: origin.id,
            branch: origin.branch,
            worktreePath: origin.worktreePath,
            meta: { origin: origin.id, reviewArtifact: artifact },
          },
          now,
        );
        // The open findings come along with their ids and history, so the reviewers verify them.
        await store.saveFindings(
          task.id,
          findings.map((f) => ({ ...f, taskId: task.id })),
          [
            {
              taskId: task.id,
              runId: null,
              type: "improve.created",
              data: { origin: origin.id, review: artifact, findings: findings.map((f) => f.id) },
            },
          ],
          now,
        );
        io.out(
          `queued ${task.id}  improve  ${task.title}\n  on ${origin.branch}, from ${artifact} and ${findings.length} open finding${findings.length === 1 ? "" : "s"}\n`,
        );
      } finally {
        await project.close();
      }
    });
}
