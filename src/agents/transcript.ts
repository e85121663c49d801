import { chmod, mkdir, writeFile } from "node:fs/promises";
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
 * With `handOver` (AgentRequest.onTranscript) the text goes to the caller at once and the file is
 * written while the caller goes on: creating a file cost about 0.9 ms on the benchmark machine's
 * disk, a third of a stage's engine work (docs/benchmarks.md). Its outcome is `written`'s, and
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
  const written = writeOwnerOnly(path, data);
  if (!handOver) return written;
  handOver({ text: data, written });
  return undefined;
}

/**
 * Writes `data` to `path` owner-only, from the thread pool: a new file when there is none (its
 * folder made on the first transcript there), else over the older one, whose mode is reset
 * (`mode` applies only when a file is created). Returns the error message, if any.
 */
async function writeOwnerOnly(path: string, data: string): Promise<string | undefined> {
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        await writeFile(path, data, { mode: 0o600, flag: "wx" });
        return undefined;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === "EEXIST") break;
        if (code !== "ENOENT" || attempt > 0) throw e;
        await mkdir(dirname(path), { recursive: true, mode: 0o700 });
      }
    }
    await writeFile(path, data, { mode: 0o600 });
    await chmod(path, 0o600);
    return undefined;
  } catch (e) {
    return `cannot write transcript ${path}: ${errorMessage(e)}`;
  }
}
