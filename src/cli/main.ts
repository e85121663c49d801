import { CommanderError } from "commander";
import { FixpointError, toError } from "../errors.js";
import { processIo } from "./io.js";
import { buildProgram } from "./program.js";
import { exitAfterFlush, stderr } from "./std-streams.js";

/**
 * The entry point: the only place that turns outcomes into exit codes (SPEC §4): 0 success;
 * 1 a task ended without approval; 2 usage or configuration error; 3 store or environment error.
 */
async function main(argv: string[]): Promise<number> {
  const io = processIo();
  const exit = { code: 0 };
  const program = await buildProgram(io, exit, argv);
  const debug = argv.includes("--debug");
  try {
    await program.parseAsync(argv);
    return exit.code;
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version end here too, with exit code 0.
      return e.exitCode === 0 ? 0 : 2;
    }
    const err = toError(e);
    if (debug) io.err(`${err.stack ?? err.message}\n`);
    else io.err(`fixpoint: ${err.message}\n`);
    return err instanceof FixpointError ? err.exitCode : 1;
  }
}

main(process.argv).then(exitAfterFlush, (e: unknown) => {
  stderr().write(`fixpoint: ${toError(e).message}\n`);
  exitAfterFlush(1);
});
