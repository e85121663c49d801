import { resolve } from "node:path";
import type { Command } from "commander";
import { findRepoRoot } from "../../app/project.js";
import { FixpointError, formatDiagnostics } from "../../errors.js";
import { listWorkflows, loadWorkflow } from "../../workflow/loader.js";
import { validateWorkflowFile } from "../../workflow/validate.js";
import { type Io, printJson } from "../io.js";

export function registerWorkflows(program: Command, io: Io): void {
  const wf = program.command("workflows").description("built-in and project workflows");
  wf.command("list")
    .description("every workflow by name (project files in .fixpoint/workflows override built-ins)")
    .option("--json", "print JSON")
    .action(async (opts: { json?: boolean }) => {
      const root = await findRepoRoot(io.cwd).catch(() => io.cwd);
      const list = await listWorkflows(root);
      if (opts.json) return printJson(io, list);
      for (const w of list)
        io.out(
          `  ${w.name.padEnd(18)} ${w.error ? `BROKEN: ${w.error}` : (w.description ?? "")}  (${w.source})\n`,
        );
    });
  wf.command("validate")
    .description(
      "check a workflow file; problems are printed as file:line:column: message (the first 100, then how many more)",
    )
    .argument("<file>")
    .action(async (file: string) => {
      const diagnostics = await validateWorkflowFile(resolve(io.cwd, file));
      if (diagnostics.length === 0) {
        io.out(`${file}: ok\n`);
        return;
      }
      throw new FixpointError("workflow", formatDiagnostics(diagnostics));
    });
  wf.command("show")
    .description("a workflow's stages and transitions")
    .argument("<name>")
    .action(async (name: string) => {
      const root = await findRepoRoot(io.cwd).catch(() => io.cwd);
      const w = await loadWorkflow(name, root);
      const lines = [`workflow ${w.name}  (${w.source})`, `  start ${w.start}`];
      for (const s of w.stages.values()) {
        if (s.parentId) continue;
        lines.push(
          `  ${s.kind.padEnd(9)} ${s.id}${s.agent ? `  agent=${s.agent}` : ""}${s.nextCycle ? "  next-cycle" : ""}`,
        );
        for (const c of s.children)
          lines.push(`    ${c.kind.padEnd(7)} ${c.id}${c.agent ? `  agent=${c.agent}` : ""}`);
        for (const r of s.routes) lines.push(`    route → ${r.to}  when ${r.when.text}`);
      }
      for (const t of w.transitions)
        lines.push(`  ${t.from} → ${t.to}${t.when ? `  when ${t.when.text}` : ""}`);
      io.out(`${lines.join("\n")}\n`);
    });
}
