import { chmod, mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
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
 */
export async function writeTranscript(
  path: string,
  sections: TranscriptSection[],
  env?: NodeJS.ProcessEnv,
): Promise<string | undefined> {
  const text = sections
    .map((s) => `## ${s.title}\n${s.body}${s.body.endsWith("\n") || s.body === "" ? "" : "\n"}`)
    .join("\n");
  try {
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    await writeFile(path, redactSecrets(text, env), { mode: 0o600 });
    // `mode` applies only when the file is created; a rerun overwrites an older one.
    await chmod(path, 0o600);
    return undefined;
  } catch (e) {
    return `cannot write transcript ${path}: ${errorMessage(e)}`;
  }
}
