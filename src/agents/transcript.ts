import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
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
 * written from the thread pool while the caller goes on: creating a file cost about 0.9 ms on the
 * benchmark machine's disk, a third of a stage's engine work (docs/benchmarks.md). Its outcome is
 * `written`'s, and this returns undefined.
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
  if (handOver) {
    handOver({ text: data, written: writeLater(path, data) });
    return undefined;
  }
  try {
    // One synchronous file operation in the usual case (a new file in an existing folder): the
    // asynchronous open/write/close each waited for a thread-pool turn, which on a busy machine
    // cost more than an agent stage's whole engine work (issue 10). The folder is made on the
    // first transcript there; a rerun that overwrites an older file resets its mode (`mode`
    // applies only when a file is created).
    if (!createNew(path, data)) {
      writeFileSync(path, data, { mode: 0o600 });
      chmodSync(path, 0o600);
    }
    return undefined;
  } catch (e) {
    return `cannot write transcript ${path}: ${errorMessage(e)}`;
  }
}

/** Writes `path` only if it does not exist yet (owner-only), making its folder when missing. */
function createNew(path: string, data: string): boolean {
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, data, { mode: 0o600, flag: "wx" });
      return true;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "EEXIST") return false;
      if (code !== "ENOENT" || attempt > 0) throw e;
      mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    }
  }
}

/** writeTranscript's file, written from the thread pool: the same file, the same outcomes. */
async function writeLater(path: string, data: string): Promise<string | undefined> {
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
