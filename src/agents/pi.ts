import type { AgentConfig } from "../config/types.js";
import type { AgentBackend, AgentRequest } from "../domain/agent.js";
import { jsonObjectFromText } from "../util/json-extract.js";
import { type CliDeps, cliDeps, runCli } from "./cli-run.js";
import { parsePiLine } from "./streams/pi-stream.js";

/**
 * pi: `pi -p --mode json`, the prompt on stdin, `--model provider/id`, `--session <id>` to
 * continue. Usage and cost come from each assistant `message_end`. pi has no structured-output
 * flag, so a schema is stated in the prompt and the final text is parsed as JSON.
 */
export interface PiOptions {
  program?: string;
  model?: string;
  deps?: Partial<CliDeps>;
}

export function piArgs(req: AgentRequest, opts: PiOptions): string[] {
  const args = ["-p", "--mode", "json"];
  const model = req.model ?? opts.model;
  if (model) args.push("--model", model);
  if (req.sessionId) args.push("--session", req.sessionId);
  args.push(...(req.extraArgs ?? []));
  return args;
}

export function createPiBackend(opts: PiOptions = {}): AgentBackend {
  const deps = cliDeps(opts.deps);
  const program = opts.program ?? "pi";
  return {
    kind: "pi",
    supportsSessions: true,
    reportsResponseStart: true,
    run: (req) =>
      runCli(deps, req, {
        program,
        args: piArgs(req, opts),
        input: req.schema ? req.prompt + schemaInstruction(req.schema) : req.prompt,
        parse: parsePiLine,
        ...(req.schema ? { structured: (s) => jsonObjectFromText(s.text) } : {}),
      }),
  };
}

export function piFromConfig(agent: AgentConfig, deps?: Partial<CliDeps>): AgentBackend {
  return createPiBackend({
    ...(agent.command?.[0] ? { program: agent.command[0] } : {}),
    ...(agent.model ? { model: agent.model } : {}),
    ...(deps ? { deps } : {}),
  });
}

/** The instruction appended to a prompt when the backend cannot enforce a schema itself. */
function schemaInstruction(schema: Record<string, unknown>): string {
  return [
    "",
    "Answer with only a JSON object (no prose, no code fence) that matches this JSON Schema:",
    JSON.stringify(schema),
  ].join("\n");
}
