import type { AgentBackend, AgentFailure, AgentRequest, AgentResult } from "../domain/agent.js";
import type { ProcessResult, ProcessRunner } from "../domain/process.js";
import { FixpointError } from "../errors.js";
import { formatDuration } from "../util/duration.js";
import { createProcessRunner } from "../util/process-runner.js";
import { redactSecrets } from "../util/redact.js";
import { type CommandOutput, failureLine, parseCommandOutput } from "./command-output.js";
import { agentEnvironment } from "./env.js";
import { writeTranscript } from "./transcript.js";

/**
 * The `command` backend (SPEC §10): any executable, the prompt on stdin, the reply on stdout.
 * The wire protocol is in docs/agents.md.
 */
export interface CommandBackendOptions {
  /** The executable and its fixed arguments; request.extraArgs are appended. */
  command: string[];
  runner?: ProcessRunner;
  /** The environment to filter and pass on; default `process.env`. */
  baseEnv?: NodeJS.ProcessEnv;
  /** Pass fixpoint's GitHub token on to the agent (off by default, SPEC §10). */
  passGithubToken?: boolean;
}

/** Per-invocation variables we set; inherited copies (a nested fixpoint) must not leak through. */
const INVOCATION_VARS = [
  "FIXPOINT_TASK_ID",
  "FIXPOINT_STAGE",
  "FIXPOINT_PURPOSE",
  "FIXPOINT_CYCLE",
  "FIXPOINT_AGENT",
  "FIXPOINT_SCHEMA",
  "FIXPOINT_SESSION_ID",
  "FIXPOINT_MODEL",
];

export function commandEnvironment(
  request: AgentRequest,
  baseEnv: NodeJS.ProcessEnv,
  passGithubToken = false,
): NodeJS.ProcessEnv {
  const env = agentEnvironment(baseEnv, {}, { passGithubToken });
  for (const name of INVOCATION_VARS) delete env[name];
  Object.assign(env, request.env, {
    FIXPOINT_TASK_ID: request.taskId,
    FIXPOINT_STAGE: request.stageId,
    FIXPOINT_PURPOSE: request.purpose,
    FIXPOINT_CYCLE: String(request.cycle),
    FIXPOINT_AGENT: request.agent,
  });
  if (request.schema) env.FIXPOINT_SCHEMA = JSON.stringify(request.schema);
  if (request.sessionId) env.FIXPOINT_SESSION_ID = request.sessionId;
  if (request.model) env.FIXPOINT_MODEL = request.model;
  return env;
}

function failureOf(
  res: ProcessResult,
  request: AgentRequest,
  executable: string,
  env: NodeJS.ProcessEnv,
): AgentFailure | undefined {
  if (res.cancelled) return { kind: "cancelled", message: "cancelled", transient: false };
  if (res.timedOut) {
    return {
      kind: "timeout",
      message: `timed out after ${formatDuration(request.timeoutMs)}`,
      transient: false,
    };
  }
  if (res.spawnError !== undefined) {
    return {
      kind: "spawn_failed",
      message: `cannot run \`${executable}\`: ${res.spawnError}`,
      transient: false,
    };
  }
  if (res.exitCode === 0) return undefined;
  const how = res.exitCode === null ? `was killed by ${res.signal ?? "a signal"}` : `exited ${res.exitCode}`;
  const line = redactSecrets(failureLine(res.stderr, res.stdout), env);
  return { kind: "exit_nonzero", message: line ? `agent ${how}: ${line}` : `agent ${how}`, transient: false };
}

function progressLine(request: AgentRequest, env: NodeJS.ProcessEnv): (line: string) => void {
  return (line) => {
    const text = line.trim();
    // JSON lines are protocol, not progress.
    if (!request.onProgress || text === "" || text.startsWith("{")) return;
    request.onProgress({ kind: "text", message: redactSecrets(text, env).slice(0, 200) });
  };
}

export function createCommandBackend(opts: CommandBackendOptions): AgentBackend {
  const runner = opts.runner ?? createProcessRunner();
  const [first, ...fixedArgs] = opts.command;
  if (first === undefined) throw new FixpointError("config", "the command backend needs a command to run");
  const executable: string = first;

  async function run(request: AgentRequest): Promise<AgentResult> {
    const baseEnv = opts.baseEnv ?? process.env;
    const env = commandEnvironment(request, baseEnv, opts.passGithubToken);
    // Redact with the unfiltered environment too: a withheld token must not leak via output. The
    // variables set per call (FIXPOINT_TASK_ID, …) are no secrets; the agent's configured env
    // may be. Without one, the base itself, whose secrets redaction remembers (redact.ts).
    const redactEnv = Object.keys(request.env).length > 0 ? { ...baseEnv, ...request.env } : baseEnv;
    const res = await runner.run({
      command: executable,
      args: [...fixedArgs, ...(request.extraArgs ?? [])],
      cwd: request.cwd,
      env,
      input: request.prompt,
      timeoutMs: request.timeoutMs,
      signal: request.signal,
      groups: request.groups,
      onStdoutLine: progressLine(request, redactEnv),
    });
    const output: CommandOutput = parseCommandOutput(res.stdout);
    const failure = failureOf(res, request, executable, redactEnv);
    const result: AgentResult = {
      ok: failure === undefined,
      text: output.text,
      usage: output.usage,
      costUsd: output.costUsd,
      exitCode: res.exitCode,
      durationMs: res.durationMs,
    };
    if (output.structured !== undefined) result.structured = output.structured;
    const sessionId = output.sessionId ?? request.sessionId;
    if (sessionId !== undefined) result.sessionId = sessionId;
    if (failure) result.failure = failure;
    if (request.transcriptPath) {
      const error = await writeTranscript(
        request.transcriptPath,
        [
          { title: "prompt", body: request.prompt },
          { title: "stdout", body: res.stdout },
          { title: "stderr", body: res.stderr },
        ],
        redactEnv,
        request.onTranscript,
      );
      if (error === undefined) result.transcriptPath = request.transcriptPath;
      else request.onProgress?.({ kind: "status", message: error });
    }
    return result;
  }

  return { kind: "command", supportsSessions: true, run };
}
