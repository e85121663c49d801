import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { processStartTicks } from "./agent-groups.js";

/** Field 22 of a /proc/<pid>/stat line: after the command name, whatever it holds. */
function ticksIn(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]);
}

describe.runIf(process.platform === "linux")("processStartTicks", () => {
  it("is field 22 of /proc/<pid>/stat", () => {
    expect(processStartTicks(process.pid)).toBe(ticksIn(readFileSync(`/proc/${process.pid}/stat`, "latin1")));
  });

  it("reads past a command name with spaces and parentheses", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fixpoint-ticks-"));
    const odd = join(dir, "a) b (c");
    symlinkSync("/bin/sleep", odd);
    const child = spawn(odd, ["5"], { stdio: "ignore" });
    try {
      await new Promise((resolve) => child.once("spawn", resolve));
      const pid = child.pid as number;
      const stat = readFileSync(`/proc/${pid}/stat`, "latin1");
      expect(stat).toContain("(a) b (c)");
      expect(processStartTicks(pid)).toBe(ticksIn(stat));
    } finally {
      child.kill();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("is null for a process that does not exist", () => {
    expect(processStartTicks(2 ** 22 + 17)).toBeNull();
  });
});
