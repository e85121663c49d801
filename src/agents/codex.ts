import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { AgentConfig, ModelPrice } from "../config/types.js";
import type { AgentBackend, AgentRequest, AgentResult } from "../domain/agent.js";
import { type CliDeps, cliDeps, runCli } from "./cli-run.js";
import { costFromUsage } from "./pricing.js";
import { parseCodexLine } from "./streams/codex-stream.js";

/**
 * Codex: `codex exec --json … -` with the prompt on stdin (a prompt given as an argument that
 * equals a subcommand name such as `review` would be taken for the subcommand), `exec resume
 * <thread_id>` to continue, `--output-schema <file>` for structured stages. Sandbox and approval
 * are set with `-c` because `exec resume` has no `--sandbox` flag; sandbox `none` (or `bypass`)
 * means `--dangerously-bypass-approvals-and-sandbox`. Codex reports no cost: it is computed from
 * the usage and the price table (`prices { … }` in the config extends it).
 */
export interface CodexOptions {
  program?: string;
  model?: string;
  /** `read-only`, `workspace-write` (default), `danger-full-access`, or `none`. */
  sandbox?: string;
  prices?: Record<string, ModelPrice>;
  deps?: Partial<CliDeps>;
}

const BYPASS = new Set(["none", "bypass", "dangerously-bypass-approvals-and-sandbox"]);

export function codexArgs(req: AgentRequest, opts: CodexOptions, schemaFile?: string): string[] {
  const args = req.sessionId ? ["exec", "resume", "--json"] : ["exec", "--json"];
  const model = req.model ?? opts.model;
  if (model) args.push("-m", model);
  const sandbox = opts.sandbox ?? "workspace-write";
  if (BYPASS.has(sandbox)) args.push("--dangerously-bypass-approvals-and-sandbox");
  else args.push("-c", `sandbox_mode=${JSON.stringify(sandbox)}`, "-c", 'approval_policy="never"');
  if (schemaFile) args.push("--output-schema", schemaFile);
  args.push(...(req.extraArgs ?? []));
  if (req.sessionId) args.push(req.sessionId);
  args.push("-");
  return args;
}

export function createCodexBackend(opts: CodexOptions = {}): AgentBackend {
  const deps = cliDeps(opts.deps);
  const program = opts.program ?? "codex";
  return {
    kind: "codex",
    supportsSessions: true,
    reportsResponseStart: true,
    run: async (req): Promise<AgentResult> => {
      let dir: string | undefined;
      try {
        let schemaFile: string | undefined;
        if (req.schema) {
          dir = await mkdtemp(join(tmpdir(), "fixpoint-codex-"));
          schemaFile = join(dir, "schema.json");
          await writeFile(schemaFile, JSON.stringify(req.schema));
        }
        const model = req.model ?? opts.model ?? "";
        return await runCli(deps, req, {
          program,
          args: codexArgs(req, opts, schemaFile),
          input: req.prompt,
          parse: parseCodexLine,
          price: (usage) => costFromUsage(model, usage, opts.prices ?? {}),
          // With --output-schema the final agent message is the JSON document.
          ...(req.schema ? { structured: (s) => parseJsonObject(s.text) } : {}),
        });
      } finally {
        if (dir) await rm(dir, { recursive: true, force: true });
      }
    },
  };
}

function parseJsonObject(text: string): unknown {
  try {
    const v: unknown = JSON.parse(text);
    return typeof v === "object" && v !== null ? v : undefined;
  } catch {
    return undefined;
  }
}

export function codexFromConfig(
  agent: AgentConfig,
  prices: Record<string, ModelPrice>,
  deps?: Partial<CliDeps>,
): AgentBackend {
  return createCodexBackend({
    ...(agent.command?.[0] ? { program: agent.command[0] } : {}),
    ...(agent.model ? { model: agent.model } : {}),
    ...(agent.sandbox ? { sandbox: agent.sandbox } : {}),
    prices,
    ...(deps ? { deps } : {}),
  });
}
