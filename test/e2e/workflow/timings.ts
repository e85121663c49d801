import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type CliName, PINNED } from "../cli-install.js";

/**
 * The wall time of one whole e2e task per backend and fixpoint's own share of it: the `work`
 * command's wall time minus the time spent in agent stages (implement, review, fix), as recorded
 * in the store's stage durations. Printed by the suite and written to docs/e2e-timings.md.
 */
export interface Timing {
  backend: string;
  version: string;
  wallMs: number;
  agentMs: number;
  agentStages: number;
}

export const TIMINGS_DOC = fileURLToPath(new URL("../../../docs/e2e-timings.md", import.meta.url));

const AGENT_KINDS = new Set(["agent", "review", "fix"]);

export function agentTime(stages: { kind: string; duration_ms: number }[]): { ms: number; count: number } {
  const agentStages = stages.filter((s) => AGENT_KINDS.has(s.kind));
  return { ms: agentStages.reduce((a, s) => a + s.duration_ms, 0), count: agentStages.length };
}

export function versionOf(backend: CliName): string {
  return `${PINNED[backend].pkg}@${PINNED[backend].version}`;
}

const s = (ms: number): string => `${(ms / 1000).toFixed(2)} s`;

export function timingLine(t: Timing): string {
  const overhead = t.wallMs - t.agentMs;
  return `${t.backend} (${t.version}): one task ${s(t.wallMs)}, in ${t.agentStages} agent stages ${s(t.agentMs)}, fixpoint overhead ${s(overhead)} (${((overhead / t.wallMs) * 100).toFixed(0)} %)`;
}

/**
 * Rewrites docs/e2e-timings.md only when asked (`FIXPOINT_WRITE_TIMINGS=1`), so a plain
 * `npm test` never dirties the working tree; the figures are printed on every run.
 */
export function writeTimingsDoc(timings: Timing[], now = new Date()): void {
  if (process.env.FIXPOINT_WRITE_TIMINGS !== "1") return;
  const rows = timings.map((t) => {
    const overhead = t.wallMs - t.agentMs;
    return `| ${t.backend} | ${t.version} | ${s(t.wallMs)} | ${t.agentStages} | ${s(t.agentMs)} | ${s(overhead)} | ${s(overhead / t.agentStages)} |`;
  });
  const text = `# End-to-end timings

Written by \`FIXPOINT_WRITE_TIMINGS=1 npx vitest run test/e2e/workflow\` (${now.toISOString().slice(0, 10)},
${process.platform}/${process.arch}, Node ${process.version}). One whole \`implement-review\` task
with one reviewer (implement → gates → review → fix → gates → review, approved after one fix
cycle), run by \`fixpoint work <id>\` against the fake model server, which answers at once: the
agent time is the CLIs' own start-up and bookkeeping, not a model thinking.

- **wall**: the \`fixpoint work\` process, start to exit (includes Node start-up and the store).
- **agent stages**: the summed durations of the implement, review and fix stages from
  \`fixpoint show --json\` (each includes spawning the CLI, its run, and fixpoint's commit of the
  stage's work).
- **overhead**: wall minus agent stages: fixpoint's own start-up, worktree creation, gates,
  decisions, git diffs for the reviews, and the store writes.

| backend | CLI version | wall | agent stages | time in agent stages | fixpoint overhead | overhead per agent stage |
|---|---|---|---|---|---|---|
${rows.join("\n")}
`;
  writeFileSync(TIMINGS_DOC, text);
}
