import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { HandedTranscript } from "../domain/agent.js";
import { errorMessage } from "../errors.js";
import { redactSecrets } from "../util/redact.js";

export interface TranscriptSection {
  title: string;
  body: string;
}

/**
 * Writes a plain-text transcript (`## title` then the body, per section), secrets redacted,
 * owner-only (it holds prompts and agent output). Returns an error message instead of throwing:
 * a transcript that cannot be written must not fail the stage.
 *
 * With `handOver` (AgentRequest.onTranscript) the text goes to the caller at once, with the write
 * of its file for the caller to run when it chooses (the engine: engine/pending-writes.ts), and
 * this returns undefined.
 */
export async function writeTranscript(
  path: string,
  sections: TranscriptSection[],
  env?: NodeJS.ProcessEnv,
  handOver?: (transcript: HandedTranscript) => void,
): Promise<string | undefined> {
  const text = sections
    .map((s) => `## ${s.title}\n${s.body}${s.body.endsWith("\n") || s.body === "" ? "" : "\n"}`)
    .join("\n");
  const data = redactSecrets(text, env);
  if (!handOver) return writeOwnerOnly(path, data);
  handOver({ text: data, write: () => writeOwnerOnly(path, data) });
  return undefined;
}

/**
 * Writes `data` to `path` owner-only: a new file when there is none (its folder made on the
 * first transcript there), else over the older one, whose mode is reset (`mode` applies only
 * when a file is created). Returns the error message, if any. Synchronous: one small file, where
 * the thread pool's hand-offs cost more than the write.
 */
function writeOwnerOnly(path: string, data: string): string | undefined {
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        writeFileSync(path, data, { mode: 0o600, flag: "wx" });
        return undefined;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === "EEXIST") break;
        if (code !== "ENOENT" || attempt > 0) throw e;
        mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
      }
    }
    writeFileSync(path, data, { mode: 0o600 });
    chmodSync(path, 0o600);
    return undefined;
  } catch (e) {
    return `cannot write transcript ${path}: ${errorMessage(e)}`;
  }
}
