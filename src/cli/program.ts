import { Command } from "commander";
import { registerAdd } from "./commands/add.js";
import { registerClean } from "./commands/clean.js";
import { registerControl } from "./commands/control.js";
import { registerDoctor } from "./commands/doctor.js";
import { registerFileIssues } from "./commands/file-issues.js";
import { registerFindings } from "./commands/findings.js";
import { registerImprove } from "./commands/improve.js";
import { registerInit } from "./commands/init.js";
import { registerLogs } from "./commands/logs.js";
import { registerPr } from "./commands/pr.js";
import { registerResume } from "./commands/resume.js";
import { registerShow } from "./commands/show.js";
import { registerStatus } from "./commands/status.js";
import { registerWork } from "./commands/work.js";
import { registerWorkflows } from "./commands/workflows.js";
import type { Io } from "./io.js";

export const VERSION = "0.1.0";

/** Builds the command tree. `exit.code` is set by commands whose outcome decides it (work, resume). */
export function buildProgram(io: Io, exit: { code: number }): Command {
  const program = new Command("fixpoint")
    .description(
      "Drive coding agents through implement → gates → reviews → fix loops until every reviewer approves,\nand keep an account of every review finding.",
    )
    .version(VERSION)
    .option("--debug", "print stack traces on errors")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .exitOverride();
  registerInit(program, io);
  registerAdd(program, io);
  registerWork(program, io, exit);
  registerStatus(program, io);
  registerShow(program, io);
  registerFindings(program, io);
  registerFileIssues(program, io, exit);
  registerLogs(program, io);
  registerResume(program, io, exit);
  registerImprove(program, io);
  registerControl(program, io);
  registerWorkflows(program, io);
  registerClean(program, io);
  registerDoctor(program, io, exit);
  registerPr(program, io, exit);
  return program;
}
