import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { SourceLocation } from "../errors.js";
import { agentsOf, knowAgents } from "./agents-of.js";
import { type At, type StoredStage, StoredStages } from "./stored-stages.js";
import type { Workflow } from "./types.js";
import { checkWorkflowText } from "./validate.js";

/**
 * Checked workflows remembered on disk (`.fixpoint/cache/workflows/`), so that a command reading
 * a workflow it has read before costs a file read and a JSON parse instead of a KDL parse and a
 * check: for a workflow of 3,000 stages in a fresh process, 20-30 ms instead of 300
 * (docs/benchmarks.md). `fixpoint work` and `resume` of a long run then start about as fast as a
 * short one's.
 *
 * An entry holds the SHA-256 of the workflow file's text and the identity of the code that
 * checked it (this module's own file: the CLI bundle, or the compiled library), and is used only
 * when both are what they are now. So an edited workflow or another fixpoint reads the text afresh.
 * One entry per workflow file, replaced when stale; written whole or not at all (a temporary
 * file renamed). Only valid workflows are remembered: a broken one is read again each time and
 * reports every problem with its location. An entry that cannot be read or written is no error:
 * the text is read as if there were no cache.
 *
 * An entry holds the locations too (found once, when it is written), and each stage as its own
 * JSON text, built into its object the first time it is asked for: resuming a run of a
 * 7,000-stage workflow builds the few stages it visits, not 7,000 (stored-stages.ts).
 */

/** Bumped whenever what an entry holds changes shape (2: each stage its own JSON text). */
const FORMAT = 2;

type Checked = ReturnType<typeof checkWorkflowText>;

/** The cache folder of a project. */
export function workflowCacheDir(projectRoot: string): string {
  return join(projectRoot, ".fixpoint", "cache", "workflows");
}

/**
 * checkWorkflowText(text, file), answered from `dir` when it holds this text checked by this
 * code; a valid workflow read afresh is stored there. `dir` null: no cache.
 */
export function checkWorkflowCached(text: string, file: string, dir: string | null): Checked {
  if (dir === null) return checkWorkflowText(text, file);
  const entry = join(dir, entryName(file));
  const known = readEntry(entry, text, file);
  if (known !== undefined) return { workflow: known, diagnostics: [] };
  const checked = checkWorkflowText(text, file);
  if (checked.workflow !== undefined) writeEntry(dir, entry, text, file, checked.workflow);
  return checked;
}

interface Entry {
  format: number;
  code: string;
  file: string;
  sha256: string;
  workflow: StoredWorkflow;
}

/**
 * A workflow as an entry holds it: each stage as its own JSON text (a StoredStage), read when the
 * stage is first asked for (stored-stages.ts); the transitions with `loc` as line and column; and
 * the agents its stages name, which every run asks for (pricing-check.ts) without reading stages.
 */
type StoredWorkflow = Omit<Workflow, "stages" | "transitions"> & {
  stageIds: string[];
  stages: string[];
  transitions: (Omit<Workflow["transitions"][number], "loc"> & { loc: At })[];
  agents: string[];
};

let codeIdentity: string | null | undefined;

/** This module's file, its size and change time: another build of fixpoint is another code. */
function code(): string | null {
  if (codeIdentity !== undefined) return codeIdentity;
  try {
    const self = fileURLToPath(import.meta.url);
    const s = statSync(self);
    codeIdentity = `${self}:${s.size}:${s.mtimeMs}`;
  } catch {
    codeIdentity = null;
  }
  return codeIdentity;
}

/** `<file name>-<FNV-1a of the path>.json`: readable, and one per workflow file. */
function entryName(file: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < file.length; i++) {
    h ^= file.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  const stem = basename(file)
    .replace(/[^A-Za-z0-9_.-]/g, "_")
    .slice(0, 100);
  return `${stem}-${(h >>> 0).toString(16).padStart(8, "0")}.json`;
}

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

function readEntry(path: string, text: string, file: string): Workflow | undefined {
  const identity = code();
  if (identity === null) return undefined;
  let entry: Entry;
  try {
    entry = JSON.parse(readFileSync(path, "utf8")) as Entry;
  } catch {
    return undefined;
  }
  if (entry?.format !== FORMAT || entry.code !== identity || entry.file !== file) return undefined;
  if (entry.sha256 !== sha256(text)) return undefined;
  try {
    return restore(entry.workflow, file);
  } catch {
    return undefined;
  }
}

function writeEntry(dir: string, path: string, text: string, file: string, workflow: Workflow): void {
  const identity = code();
  if (identity === null) return;
  let json: string;
  try {
    const entry: Entry = {
      format: FORMAT,
      code: identity,
      file,
      sha256: sha256(text),
      workflow: stored(workflow),
    };
    json = JSON.stringify(entry, finiteOnly);
  } catch {
    return; // a value JSON cannot hold exactly: read afresh each time
  }
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(tmp, json, { mode: 0o600 });
    renameSync(tmp, path);
  } catch {
    try {
      rmSync(tmp, { force: true });
    } catch {
      // nothing was written
    }
  }
}

/** JSON would write Infinity and NaN as null: such a workflow is not stored. */
function finiteOnly(_key: string, value: unknown): unknown {
  if (typeof value === "number" && !Number.isFinite(value)) throw new RangeError("not a finite number");
  return value;
}

/** The workflow as an entry holds it (reading a lazy `loc` reads the text with locations, once). */
function stored(workflow: Workflow): StoredWorkflow {
  const stageIds: string[] = [];
  const stages: string[] = [];
  for (const stage of workflow.stages.values()) {
    const copy = withAt(stage) as unknown as StoredStage;
    copy.children = stage.children.map((c) => c.id);
    copy.routes = stage.routes.map((r) => withAt(r) as unknown as StoredStage["routes"][number]);
    stageIds.push(stage.id);
    stages.push(JSON.stringify(copy, finiteOnly));
  }
  const out = { ...workflow } as unknown as StoredWorkflow;
  out.stageIds = stageIds;
  out.stages = stages;
  out.transitions = workflow.transitions.map(
    (t) => withAt(t) as unknown as StoredWorkflow["transitions"][number],
  );
  out.agents = agentsOf(workflow);
  return out;
}

/** The object's own properties in their order, `loc` as line and column. */
function withAt(o: { loc: SourceLocation }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(o)) {
    out[key] =
      key === "loc"
        ? ([o.loc.line, o.loc.column] satisfies At)
        : (o as unknown as Record<string, unknown>)[key];
  }
  return out;
}

/** The workflow as checkWorkflowText returns it, `loc`s included; its stages are built when asked for. */
function restore(s: StoredWorkflow, file: string): Workflow {
  const { stageIds, stages, agents } = s;
  if (!Array.isArray(stageIds) || !Array.isArray(stages) || !Array.isArray(agents)) {
    throw new Error("cached workflow: malformed");
  }
  // The workflow's own properties in the order they were written, `stages` where it was.
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(s)) {
    if (key === "stageIds" || key === "agents") continue;
    out[key] = key === "stages" ? new StoredStages(stageIds, stages, file) : value;
  }
  for (const t of s.transitions) {
    const at = t.loc;
    (t as unknown as { loc: SourceLocation }).loc = { file, line: at[0], column: at[1] };
  }
  const workflow = out as unknown as Workflow;
  knowAgents(workflow, agents);
  return workflow;
}
