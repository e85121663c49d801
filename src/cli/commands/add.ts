import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import { TASK_TYPES, type TaskType } from "../../domain/types.js";
import { FixpointError } from "../../errors.js";
import { loadWorkflow } from "../../workflow/loader.js";
import { type Io, printJson } from "../io.js";
import { openProject } from "../project.js";
import { taskJson } from "../render/json.js";
import { parseNumber, parsePositiveInt } from "../task-ref.js";

interface AddOptions {
  type?: string;
  workflow?: string;
  maxCycles?: string;
  review?: boolean;
  agent?: string;
  reviewAgent?: string;
  budgetUsd?: string;
  base?: string;
  promptFile?: string;
  title?: string;
  json?: boolean;
}

export function registerAdd(program: Command, io: Io): void {
  program
    .command("add")
    .description("queue a task; prints its id")
    .argument("[prompt]", "what the agent should do (or use --prompt-file)")
    .option("--type <type>", `task type: ${TASK_TYPES.join(", ")}`, "implement")
    .option("--workflow <name>", "workflow to run (default from fixpoint.kdl)")
    .option("--max-cycles <n>", "fix cycles before MAX_CYCLES_REACHED")
    .option("--no-review", "implement and run the gates only, without reviews")
    .option("--agent <name>", "configured agent to implement and fix with")
    .option("--review-agent <name>", "configured agent to review with")
    .option("--budget-usd <usd>", "stop the task when it has cost this much (all runs)")
    .option("--base <branch>", "base branch (default: the current branch)")
    .option("--prompt-file <file>", "read the prompt from a file")
    .option("--title <title>", "short title (default: the prompt's first line)")
    .option("--json", "print the task as JSON")
    .action(async (promptArg: string | undefined, opts: AddOptions) => {
      const prompt = opts.promptFile ? await readFile(resolve(io.cwd, opts.promptFile), "utf8") : promptArg;
      if (!prompt || prompt.trim() === "")
        throw new FixpointError("usage", "add needs a prompt (an argument or --prompt-file)");
      if (!(TASK_TYPES as readonly string[]).includes(opts.type ?? "implement")) {
        throw new FixpointError(
          "usage",
          `unknown task type \`${opts.type}\` (one of ${TASK_TYPES.join(", ")})`,
        );
      }
      const maxCycles = parsePositiveInt("--max-cycles", opts.maxCycles);
      const budgetUsd = parseNumber("--budget-usd", opts.budgetUsd);
      const project = await openProject(io.cwd, { env: io.env, flags: { maxCycles, budgetUsd } });
      try {
        const { config, git, root } = project;
        const workflow =
          opts.workflow ?? (opts.review === false ? "implement-only" : config.defaults.workflow);
        await loadWorkflow(workflow, root);
        const base = opts.base ?? config.defaults.baseBranch ?? (await git.currentBranch(root));
        if (!base || !(await git.revParse(root, base))) {
          throw new FixpointError(
            "usage",
            `base branch \`${base ?? "(detached HEAD)"}\` not found; pass --base <branch>`,
          );
        }
        const agents: Record<string, string> = {};
        for (const [role, name] of [
          ["implementer", opts.agent],
          ["fixer", opts.agent],
          ["reviewer", opts.reviewAgent],
        ] as const) {
          if (!name) continue;
          if (!config.agents[name]) {
            throw new FixpointError(
              "usage",
              `unknown agent \`${name}\` (configured: ${Object.keys(config.agents).join(", ")})`,
            );
          }
          agents[role] = name;
        }
        const task = await project.store.createTask(
          {
            type: (opts.type ?? "implement") as TaskType,
            title: opts.title ?? titleOf(prompt),
            prompt: prompt.trim(),
            workflow,
            repo: root,
            baseBranch: base,
            maxCycles: config.defaults.maxCycles,
            budget: config.defaults.budget,
            agents,
            meta: opts.review === false ? { noReview: true } : {},
          },
          Date.now(),
        );
        await project.store.appendEvents(
          [
            {
              taskId: task.id,
              runId: null,
              type: "task.queued",
              data: { workflow, base, maxCycles: task.maxCycles },
            },
          ],
          Date.now(),
        );
        if (opts.json) printJson(io, taskJson(task));
        else io.out(`queued ${task.id}  ${task.type}  ${task.title}\n`);
      } finally {
        await project.close();
      }
    });
}

function titleOf(prompt: string): string {
  const first = prompt.trim().split("\n")[0] ?? "";
  return first.length > 72 ? `${first.slice(0, 71)}…` : first;
}
