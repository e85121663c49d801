import { describe, expect, it } from "vitest";
import type { Io } from "./io.js";
import { buildProgram } from "./program.js";

function bufferIo(): Io & { text: () => string } {
  let out = "";
  return {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      out += t;
    },
    isTTY: false,
    cwd: process.cwd(),
    env: {},
    text: () => out,
  };
}

const commandNames = async (argv: string[]) =>
  (await buildProgram(bufferIo(), { code: 0 }, ["node", "fixpoint", ...argv])).commands.map((c) => c.name());

describe("buildProgram", () => {
  it("loads only the invoked command, none for --version alone, all for help", async () => {
    expect(await commandNames(["status", "--json"])).toEqual(["status"]);
    expect(await commandNames(["--version"])).toEqual([]);
    expect(await commandNames(["-V"])).toEqual([]);
    const all = await commandNames(["--help"]);
    expect(all).toEqual(expect.arrayContaining(["status", "work", "add", "show", "init"]));
    expect(await commandNames([])).toEqual(all);
    // A flag value is not a command, and a command's own --version is its business.
    expect(await commandNames(["--database", "sqlite", "status"])).toEqual(["status"]);
    expect(await commandNames(["add", "--version"])).toEqual(["add"]);
  });

  it("prints the version for --version with no command loaded", async () => {
    const io = bufferIo();
    const program = await buildProgram(io, { code: 0 }, ["node", "fixpoint", "--version"]);
    await expect(program.parseAsync(["node", "fixpoint", "--version"])).rejects.toMatchObject({
      code: "commander.version",
      exitCode: 0,
    });
    expect(io.text()).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
