import { isAbsolute, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import type { AgentBackend, AgentFailureKind, AgentRequest, AgentResult } from "../domain/agent.js";
import { type TokenUsage, ZERO_USAGE } from "../domain/types.js";
import { errorMessage, FixpointError } from "../errors.js";
import { formatDuration } from "../util/duration.js";
import { importFile } from "../util/import-file.js";
import { writeTranscript } from "./transcript.js";

/**
 * The scripted agent: a function in place of a model, for tests and the demo. It does real work
 * by reading and writing files under `req.cwd`, and answers like an agent would.
 */
export interface ScriptReply {
  text?: string;
  structured?: unknown;
  sessionId?: string;
  usage?: Partial<TokenUsage>;
  costUsd?: number;
  fail?: { kind: AgentFailureKind; message: string; transient?: boolean };
}

/** `ctx.invocation` counts the calls on this backend instance, starting at 1. */
export type ScriptHandler = (
  req: AgentRequest,
  ctx: { invocation: number },
) => ScriptReply | Promise<ScriptReply>;

type Outcome = { reply: ScriptReply } | { stopped: "timeout" | "cancelled" } | { thrown: unknown };

/** Runs the handler against the request's timeout and abort signal; the loser is abandoned. */
function race(handler: ScriptHandler, req: AgentRequest, invocation: number): Promise<Outcome> {
  if (req.signal.aborted) return Promise.resolve({ stopped: "cancelled" });
  return new Promise<Outcome>((settle) => {
    let done = false;
    const finish = (o: Outcome): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.signal.removeEventListener("abort", onAbort);
      settle(o);
    };
    const onAbort = (): void => finish({ stopped: "cancelled" });
    const timer = setTimeout(() => finish({ stopped: "timeout" }), req.timeoutMs);
    req.signal.addEventListener("abort", onAbort, { once: true });
    // Promise.resolve().then(): a handler that throws synchronously is caught like a rejection.
    Promise.resolve()
      .then(() => handler(req, { invocation }))
      .then(
        (reply) => finish({ reply }),
        (e: unknown) => finish({ thrown: e }),
      );
  });
}

let instances = 0;

export function createScriptedBackend(handler: ScriptHandler): AgentBackend {
  // One stable session id per backend instance, unique in the process.
  instances += 1;
  const ownSession = `scripted-${instances}`;
  let invocation = 0;

  async function run(req: AgentRequest): Promise<AgentResult> {
    const started = Date.now();
    invocation += 1;
    const outcome = await race(handler, req, invocation);
    const result: AgentResult = {
      ok: false,
      text: "",
      usage: { ...ZERO_USAGE },
      costUsd: 0,
      exitCode: null,
      durationMs: 0,
      sessionId: req.sessionId ?? ownSession,
    };
    if ("stopped" in outcome) {
      const message =
        outcome.stopped === "timeout" ? `timed out after ${formatDuration(req.timeoutMs)}` : "cancelled";
      result.failure = { kind: outcome.stopped, message, transient: false };
    } else if ("thrown" in outcome) {
      result.exitCode = 1;
      result.failure = {
        kind: "exit_nonzero",
        message: `scripted agent failed: ${errorMessage(outcome.thrown)}`,
        transient: false,
      };
    } else {
      const { reply } = outcome;
      result.ok = reply.fail === undefined;
      result.exitCode = result.ok ? 0 : 1;
      result.text = reply.text ?? (reply.structured === undefined ? "" : JSON.stringify(reply.structured));
      if (reply.structured !== undefined) result.structured = reply.structured;
      if (reply.sessionId) result.sessionId = reply.sessionId;
      result.usage = { ...ZERO_USAGE, ...reply.usage };
      result.costUsd = reply.costUsd ?? 0;
      if (reply.fail) result.failure = { transient: false, ...reply.fail };
    }
    if (req.transcriptPath) {
      const reply = { text: result.text, structured: result.structured, failure: result.failure };
      const error = await writeTranscript(
        req.transcriptPath,
        [
          { title: "prompt", body: req.prompt },
          { title: "reply", body: JSON.stringify(reply, null, 2) },
        ],
        undefined,
        req.onTranscript,
      );
      if (error === undefined) result.transcriptPath = req.transcriptPath;
      else req.onProgress?.({ kind: "status", message: error });
    }
    result.durationMs = Date.now() - started;
    return result;
  }

  return { kind: "scripted", supportsSessions: true, run };
}

/**
 * Loads a scripted agent from an ES module whose default export is a ScriptHandler. Relative
 * paths resolve against `baseDir` (default: the current directory).
 */
export async function loadScriptedBackend(
  modulePath: string,
  baseDir = process.cwd(),
): Promise<AgentBackend> {
  const abs = isAbsolute(modulePath) ? modulePath : resolve(baseDir, modulePath);
  let mod: { default?: unknown };
  try {
    mod = (await importFile(pathToFileURL(abs).href)) as { default?: unknown };
  } catch (e) {
    throw new FixpointError("config", `cannot load scripted agent ${abs}: ${errorMessage(e)}`, { cause: e });
  }
  const handler = mod.default;
  if (typeof handler !== "function") {
    throw new FixpointError(
      "config",
      `scripted agent ${abs} must have a default export that is a function (req, ctx) => reply`,
    );
  }
  return createScriptedBackend(handler as ScriptHandler);
}
