import { existsSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Diagnostic, DiagnosticsError, FixpointError, formatDiagnostic } from "../errors.js";
import { checkWorkflowCached, workflowCacheDir } from "./checked-cache.js";
import type { Workflow } from "./types.js";

/**
 * Workflows come from two folders: the package's `workflows/` (built-ins) and the project's
 * `.fixpoint/workflows/`. A project workflow overrides a built-in with the same workflow name
 * (the name inside the file, not the file name).
 */

/** Resolved relative to this module, so it works from both `src/workflow/` and `dist/workflow/`. */
export const BUILTIN_WORKFLOWS_DIR = fileURLToPath(new URL("../../workflows/", import.meta.url));

export interface WorkflowListing {
  name: string;
  /** `builtin:<name>` or the project file's path. */
  source: string;
  description?: string;
  /** Set when the file does not validate; `name` is then the file name without `.kdl`. */
  error?: string;
}

export interface LoaderOptions {
  builtinDir?: string;
}

interface Scanned {
  file: string;
  stem: string;
  builtin: boolean;
  workflow?: Workflow;
  diagnostics: Diagnostic[];
}

export function projectWorkflowsDir(projectRoot: string): string {
  return join(projectRoot, ".fixpoint", "workflows");
}

export async function loadWorkflow(
  name: string,
  projectRoot: string,
  options: LoaderOptions = {},
): Promise<Workflow> {
  const scanned = await scanAll(projectRoot, options);
  const found = scanned.find((s) => s.workflow?.name === name);
  if (found?.workflow !== undefined) return withSource(found.workflow, found.builtin);
  // A broken file named after the workflow is almost certainly the one asked for: say why.
  const broken = scanned.find((s) => s.workflow === undefined && s.stem === name);
  if (broken !== undefined) throw new DiagnosticsError("workflow", broken.diagnostics);
  const available = [...new Set(scanned.flatMap((s) => (s.workflow ? [s.workflow.name] : [])))].sort();
  throw new FixpointError(
    "not_found",
    `unknown workflow \`${name}\` (available: ${available.length > 0 ? available.join(", ") : "none"})`,
  );
}

/** Every workflow by name, project overrides applied, sorted by name; broken files included. */
export async function listWorkflows(
  projectRoot: string,
  options: LoaderOptions = {},
): Promise<WorkflowListing[]> {
  const byName = new Map<string, WorkflowListing>();
  for (const s of await scanAll(projectRoot, options)) {
    const name = s.workflow?.name ?? s.stem;
    if (byName.has(name)) continue;
    if (s.workflow === undefined) {
      const first = s.diagnostics[0];
      byName.set(name, { name, source: s.file, error: first ? formatDiagnostic(first) : "invalid workflow" });
      continue;
    }
    const listing: WorkflowListing = { name, source: withSource(s.workflow, s.builtin).source };
    if (s.workflow.description !== undefined) listing.description = s.workflow.description;
    byName.set(name, listing);
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

function withSource(workflow: Workflow, builtin: boolean): Workflow {
  return builtin ? { ...workflow, source: `builtin:${workflow.name}` } : workflow;
}

/** Project files first, so the first match by name is the override. */
async function scanAll(projectRoot: string, options: LoaderOptions): Promise<Scanned[]> {
  // Remembered in a project that has its `.fixpoint/` folder; elsewhere read each time.
  const cache = existsSync(join(projectRoot, ".fixpoint")) ? workflowCacheDir(projectRoot) : null;
  const project = await scanDir(projectWorkflowsDir(projectRoot), false, cache);
  const builtin = await scanDir(options.builtinDir ?? BUILTIN_WORKFLOWS_DIR, true, cache);
  return [...project, ...builtin];
}

async function scanDir(dir: string, builtin: boolean, cache: string | null): Promise<Scanned[]> {
  let names: string[];
  try {
    names = (await readdir(dir)).filter((n) => n.endsWith(".kdl")).sort();
  } catch (e) {
    if (isMissing(e)) return [];
    throw new FixpointError("environment", `cannot read workflow folder ${dir}`, { cause: e });
  }
  // One file at a time: a folder of thousands of workflows must not open them all at once.
  const scanned: Scanned[] = [];
  for (const n of names) {
    const file = join(dir, n);
    const text = await readFile(file, "utf8");
    const { workflow, diagnostics } = checkWorkflowCached(text, file, cache);
    const one: Scanned = { file, stem: basename(n, ".kdl"), builtin, diagnostics };
    if (workflow !== undefined) one.workflow = workflow;
    scanned.push(one);
  }
  return scanned;
}

function isMissing(e: unknown): boolean {
  return e instanceof Error && "code" in e && (e.code === "ENOENT" || e.code === "ENOTDIR");
}
