import { describe, expect, it } from "vitest";
import type { EngineEvent } from "../../engine/events.js";
import { createProgressReporter } from "./progress.js";

/**
 * A small terminal: `\r` goes to the start of the line, `ESC[2K` erases it, `\n` starts the next
 * one; everything else overwrites at the cursor. What it shows is what a person would see.
 */
function terminal() {
  const lines: string[] = [""];
  let col = 0;
  const write = (text: string) => {
    for (let i = 0; i < text.length; i++) {
      const ch = text[i] as string;
      const row = lines.length - 1;
      if (text.startsWith("\x1b[2K", i)) {
        lines[row] = "";
        i += 3;
      } else if (ch === "\r") col = 0;
      else if (ch === "\n") {
        lines.push("");
        col = 0;
      } else {
        const cur = lines[row] as string;
        lines[row] = cur.slice(0, col).padEnd(col) + ch + cur.slice(col + 1);
        col++;
      }
    }
  };
  return { write, screen: () => lines.join("\n") };
}

const SPINNER = /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]/;

const started = (taskId: string, stageId: string): EngineEvent => ({
  type: "stage.started",
  taskId,
  stageId,
  kind: "agent",
  cycle: 0,
  maxCycles: 3,
});
const finished = (taskId: string, stageId: string): EngineEvent => ({
  type: "stage.finished",
  taskId,
  stageId,
  kind: "agent",
  cycle: 0,
  maxCycles: 3,
  outcome: "success",
  summary: null,
  durationMs: 1500,
  costUsd: 0,
  failureReason: null,
});

describe("progress lines", () => {
  it("concurrent tasks: every stage line and spinner part names its task", () => {
    const t = terminal();
    const p = createProgressReporter({ write: t.write, isTTY: true }, { now: () => 0, taskIds: true });
    p.onEvent(started("t-1", "implement"));
    p.onEvent(started("t-2", "implement"));
    p.tick();
    expect(t.screen()).toMatch(/t-1 \[0\/3\] implement .*\| {2}t-2 \[0\/3\] implement/);
    p.onEvent(finished("t-2", "implement"));
    p.onEvent(finished("t-1", "implement"));
    p.close();
    const shown = t.screen().split("\n");
    expect(shown.filter((l) => l.includes("implement"))).toEqual([
      "  t-2 [0/3] implement ........... done (2s)",
      "  t-1 [0/3] implement ........... done (2s)",
    ]);
  });

  it("a finished spinner leaves no stray frame, also when the last stage ends or the run stops", () => {
    for (const end of ["finish", "close"] as const) {
      const t = terminal();
      const p = createProgressReporter({ write: t.write, isTTY: true }, { now: () => 0 });
      p.onEvent(started("t-1", "review"));
      p.tick();
      expect(t.screen()).toMatch(SPINNER);
      if (end === "finish") p.onEvent(finished("t-1", "review"));
      p.close();
      expect(t.screen()).not.toMatch(SPINNER);
      expect(t.screen().endsWith("\n") || t.screen() === "").toBe(true);
    }
  });

  it("without a terminal only finished lines print, no control characters", () => {
    const out: string[] = [];
    const p = createProgressReporter(
      { write: (s) => out.push(s), isTTY: false },
      { now: () => 0, taskIds: true },
    );
    p.onEvent(started("t-4", "fix"));
    p.tick();
    p.onEvent(finished("t-4", "fix"));
    p.close();
    expect(out.join("")).toBe("  t-4 [0/3] fix ................. done (2s)\n");
  });
});
