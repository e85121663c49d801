import type { EngineEvent } from "../../engine/events.js";
import { dotted, elapsed, money, plural } from "./format.js";

export interface ProgressSink {
  write(text: string): void;
  isTTY: boolean;
  /** Terminal width for the spinner line; default 100. */
  columns?: number;
}

export interface ProgressOptions {
  now: () => number;
  /**
   * Start every stage line and spinner part with its task id (`t-3 [1/3] review …`): set when
   * several tasks run at once (`work --concurrency N`), whose lines would otherwise interleave
   * with nothing saying which task each belongs to.
   */
  taskIds?: boolean;
}

/**
 * Turns engine events into the progress lines of SPEC §3. On a terminal the running stage shows a
 * spinner with elapsed time and the cost so far; elsewhere (CI, a pipe) only finished lines print.
 * A spinner frame on screen is always erased before a line is written and when the last stage
 * ends or the reporter closes, so no stray frame is left behind.
 */
export function createProgressReporter(out: ProgressSink, opts: ProgressOptions) {
  const now = opts.now;
  const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
  const live = new Map<string, { label: string; started: number; cost: number; note: string }>();
  let timer: NodeJS.Timeout | null = null;
  let frame = 0;
  /** True while a spinner frame is on the current terminal line. */
  let drawn = false;
  const who = (taskId: string) => (opts.taskIds ? `${taskId} ` : "");

  const clearLine = () => {
    if (drawn) out.write("\r\x1b[2K");
    drawn = false;
  };
  const draw = () => {
    if (!out.isTTY || live.size === 0) return;
    frame = (frame + 1) % frames.length;
    const parts = [...live.values()].map(
      (s) =>
        `${s.label} ${elapsed(now() - s.started)}${s.cost > 0 ? ` ${money(s.cost)}` : ""}${s.note ? ` · ${s.note}` : ""}`,
    );
    out.write(`\r\x1b[2K  ${frames[frame]} ${parts.join("  |  ").slice(0, (out.columns ?? 100) - 6)}`);
    drawn = true;
  };
  const ensureTimer = () => {
    if (out.isTTY && !timer) {
      timer = setInterval(draw, 120);
      timer.unref();
    }
  };
  const stopTimer = () => {
    if (timer && live.size === 0) {
      clearInterval(timer);
      timer = null;
    }
    if (live.size === 0) clearLine();
  };
  const line = (text: string) => {
    clearLine();
    out.write(`${text}\n`);
    draw();
  };
  const cyc = (e: { taskId: string; cycle: number; maxCycles: number }) =>
    `${who(e.taskId)}[${e.cycle}/${e.maxCycles}]`;

  return {
    onEvent(e: EngineEvent): void {
      switch (e.type) {
        case "task.started":
          line(`${e.resumed ? "Resuming" : "Running"} ${e.taskId}: ${e.title}`);
          break;
        case "stage.started":
          if (e.kind === "parallel" || e.kind === "decision" || e.kind === "exit") break;
          live.set(`${e.taskId}/${e.stageId}`, {
            label: `${cyc(e)} ${e.stageId}`,
            started: now(),
            cost: 0,
            note: "",
          });
          ensureTimer();
          draw();
          break;
        case "agent.progress": {
          const s = live.get(`${e.taskId}/${e.stageId}`);
          if (s) {
            s.note = e.message.slice(0, 40);
            if (e.costUsd !== undefined) s.cost = e.costUsd;
          }
          break;
        }
        case "stage.finished": {
          live.delete(`${e.taskId}/${e.stageId}`);
          stopTimer();
          if (e.kind === "parallel" || e.kind === "decision" || e.kind === "exit") break;
          const name = e.kind === "gate" ? `gates` : e.stageId;
          line(`  ${cyc(e)} ${dotted(name)} ${stageText(e)}`);
          break;
        }
        case "notice":
          line(`  ! ${e.message.startsWith(e.taskId) ? "" : who(e.taskId)}${e.message}`);
          break;
        case "task.finished": {
          const ok = e.verdict === "APPROVED" || e.verdict === "APPROVED_WITH_FOLLOWUPS";
          const mark = ok ? "✓" : e.status === "cancelled" ? "✗" : "!";
          const what = ok
            ? `${e.verdict} after ${plural(e.cycles, "fix cycle")}`
            : `${e.verdict ?? e.status}: ${e.reason ?? ""}`;
          const tail = [e.branch ? `branch ${e.branch}` : null, money(e.costUsd)]
            .filter(Boolean)
            .join("  ·  ");
          line(`${mark} ${e.taskId} ${ok ? "completed" : e.status}: ${what}  ·  ${tail}`);
          break;
        }
      }
    },
    close(): void {
      live.clear();
      stopTimer();
    },
    /** For the spinner's timer in tests: draws one frame now. */
    tick(): void {
      draw();
    },
  };
}

function stageText(e: Extract<EngineEvent, { type: "stage.finished" }>): string {
  const dur = elapsed(e.durationMs);
  const cost = e.costUsd > 0 ? `, ${money(e.costUsd)}` : "";
  if (e.kind === "gate") return e.summary ?? e.outcome;
  if (e.kind === "github") {
    return e.outcome === "fail" ? `failed: ${e.failureReason ?? "unknown"}` : (e.summary ?? "done");
  }
  if (e.kind === "review") return e.summary ?? e.outcome;
  if (e.outcome === "fail") return `failed: ${e.failureReason ?? "unknown"} (${dur}${cost})`;
  if (e.kind === "fix") return `${e.summary ?? e.outcome} (${dur}${cost})`;
  return `${e.outcome === "success" ? "done" : e.outcome} (${dur}${cost})`;
}
