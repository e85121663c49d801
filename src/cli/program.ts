import { Command } from "commander";
import { normaliseDatabaseUrl } from "../config/parse-sections.js";
import { homeFrom } from "../config/paths.js";
import { FixpointError } from "../errors.js";
import type { Io } from "./io.js";

export const VERSION = "0.1.0";

type Register = (program: Command, io: Io, exit: { code: number }) => void;

/**
 * Each command's module, loaded only when needed: `fixpoint status` must not pay for importing the
 * engine, the agent backends or the GitHub client (SPEC §14 budgets the whole process). Keys are
 * the top-level command names a module defines.
 */
const MODULES: { names: string[]; load: () => Promise<Register[]> }[] = [
  { names: ["init"], load: async () => [(await import("./commands/init.js")).registerInit] },
  { names: ["add"], load: async () => [(await import("./commands/add.js")).registerAdd] },
  { names: ["work"], load: async () => [(await import("./commands/work.js")).registerWork] },
  { names: ["status"], load: async () => [(await import("./commands/status.js")).registerStatus] },
  { names: ["show"], load: async () => [(await import("./commands/show.js")).registerShow] },
  {
    // `findings file-issues` hangs off the findings command.
    names: ["findings"],
    load: async () => [
      (await import("./commands/findings.js")).registerFindings,
      (await import("./commands/file-issues.js")).registerFileIssues,
    ],
  },
  { names: ["logs"], load: async () => [(await import("./commands/logs.js")).registerLogs] },
  { names: ["resume", "retry"], load: async () => [(await import("./commands/resume.js")).registerResume] },
  { names: ["improve"], load: async () => [(await import("./commands/improve.js")).registerImprove] },
  {
    names: ["cancel", "edit", "approve", "reject"],
    load: async () => [(await import("./commands/control.js")).registerControl],
  },
  { names: ["workflows"], load: async () => [(await import("./commands/workflows.js")).registerWorkflows] },
  { names: ["clean"], load: async () => [(await import("./commands/clean.js")).registerClean] },
  { names: ["doctor"], load: async () => [(await import("./commands/doctor.js")).registerDoctor] },
  { names: ["pr"], load: async () => [(await import("./commands/pr.js")).registerPr] },
  { names: ["workers"], load: async () => [(await import("./commands/workers.js")).registerWorkers] },
  { names: ["store"], load: async () => [(await import("./commands/store.js")).registerStore] },
  { names: ["reviewers"], load: async () => [(await import("./commands/reviewers.js")).registerReviewers] },
  { names: ["serve"], load: async () => [(await import("./commands/serve.js")).registerServe] },
  { names: ["diff"], load: async () => [(await import("./commands/diff.js")).registerDiff] },
  { names: ["learnings"], load: async () => [(await import("./commands/learnings.js")).registerLearnings] },
  { names: ["checkout"], load: async () => [(await import("./commands/checkout.js")).registerCheckout] },
];

/**
 * Builds the command tree for `argv`: only the invoked command's module when the first argument
 * names one, none for `--version` alone, every module otherwise (help, a typo that needs
 * "unknown command"). `exit.code` is set by commands whose outcome decides it (work, resume, pr,
 * doctor).
 */
export async function buildProgram(io: Io, exit: { code: number }, argv: string[] = []): Promise<Command> {
  const program = new Command("fixpoint")
    .description(
      "Drive coding agents through implement → gates → reviews → fix loops until every reviewer approves,\nand keep an account of every review finding.",
    )
    .version(VERSION)
    .option("--debug", "print stack traces on errors")
    .option(
      "--database <url>",
      "the store: sqlite, a .db file, or postgres://… (over FIXPOINT_DATABASE_URL and fixpoint.kdl)",
    )
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ writeOut: io.out, writeErr: io.err })
    .exitOverride()
    // Passed on as FIXPOINT_DATABASE_URL, which every command's config already reads and which
    // overrides fixpoint.kdl.
    .hook("preAction", (cmd) => {
      const database: unknown = cmd.opts().database;
      if (typeof database !== "string") return;
      // Checked here, so that a bad value is said as the flag the user typed, not as the variable.
      const url = normaliseDatabaseUrl(database, { baseDir: io.cwd, home: homeFrom(io.env) });
      if (typeof url !== "string") throw new FixpointError("usage", `--database: ${url.error}`);
      io.env.FIXPOINT_DATABASE_URL = database;
    });
  const args = argv.slice(2);
  const first = args.find((a, i) => !a.startsWith("-") && args[i - 1] !== "--database");
  const wantsHelp = argv.includes("--help") || argv.includes("-h") || first === "help";
  const one = MODULES.find((m) => first !== undefined && m.names.includes(first));
  // `fixpoint --version` alone needs no command: loading them all took it to 0.6 s.
  const wantsVersion =
    first === undefined && !wantsHelp && (args.includes("--version") || args.includes("-V"));
  const modules = wantsVersion ? [] : one && !wantsHelp ? [one] : MODULES;
  for (const m of modules) for (const register of await m.load()) register(program, io, exit);
  return program;
}
