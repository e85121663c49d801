import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import type { Command } from "commander";
import { addTask } from "../../app/add-task.js";
import { TASK_TYPES } from "../../domain/types.js";
import { errorMessage, FixpointError } from "../../errors.js";
import { withContext } from "../context.js";
import { type Io, printJson } from "../io.js";
import { taskJson } from "../render/json.js";
import { parseInteger, parseNumber, parseWholeNumber } from "../task-ref.js";

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
  priority?: string;
  notes?: string;
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
    .option("--priority <n>", "claim order: higher first, then oldest (default 0; may be negative)")
    .option("--notes <text>", "free text kept on the task (secrets are redacted)")
    .option("--json", "print the task as JSON")
    .action(async (promptArg: string | undefined, opts: AddOptions) => {
      const prompt = opts.promptFile ? await readPromptFile(resolve(io.cwd, opts.promptFile)) : promptArg;
      if (!prompt || prompt.trim() === "")
        throw new FixpointError("usage", "add needs a prompt (an argument or --prompt-file)");
      const type = TASK_TYPES.find((t) => t === (opts.type ?? "implement"));
      if (!type) {
        throw new FixpointError(
          "usage",
          `unknown task type \`${opts.type}\` (one of ${TASK_TYPES.join(", ")})`,
        );
      }
      const maxCycles = parseWholeNumber("--max-cycles", opts.maxCycles, 1);
      const budgetUsd = parseNumber("--budget-usd", opts.budgetUsd);
      const priority = parseInteger("--priority", opts.priority);
      const task = await withContext(
        io,
        (ctx) =>
          addTask(ctx, {
            prompt,
            type,
            review: opts.review !== false,
            ...(opts.title !== undefined ? { title: opts.title } : {}),
            ...(opts.workflow !== undefined ? { workflow: opts.workflow } : {}),
            ...(opts.base !== undefined ? { base: opts.base } : {}),
            ...(opts.agent !== undefined ? { agent: opts.agent } : {}),
            ...(opts.reviewAgent !== undefined ? { reviewAgent: opts.reviewAgent } : {}),
            ...(priority !== undefined ? { priority } : {}),
            ...(opts.notes !== undefined ? { notes: opts.notes } : {}),
          }),
        // As flags, so a bad value is reported like every other configuration override.
        { flags: { maxCycles, budgetUsd } },
      );
      if (opts.json) printJson(io, taskJson(task));
      else
        io.out(
          `queued ${task.id}  ${task.type}  ${task.title}${task.priority !== 0 ? `  (priority ${task.priority})` : ""}\n`,
        );
    });
}

/** The prompt file's text; a missing or unreadable file is a usage error naming its path. */
async function readPromptFile(path: string): Promise<string> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    const code = e instanceof Error && "code" in e ? String(e.code) : "";
    const why =
      code === "ENOENT" ? "no such file" : code === "EISDIR" ? "a directory, not a file" : errorMessage(e);
    throw new FixpointError("usage", `--prompt-file ${path}: ${why}`, { cause: e });
  }
}
