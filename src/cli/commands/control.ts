import { userInfo } from "node:os";
import type { Command } from "commander";
import { FINAL_VERDICTS, type FinalVerdict, isApproval } from "../../domain/types.js";
import { humanMarkerKey } from "../../engine/handlers/simple.js";
import { FixpointError } from "../../errors.js";
import type { Io } from "../io.js";
import { openProject } from "../project.js";
import { requireTask } from "../task-ref.js";

function who(): string {
  try {
    return userInfo().username;
  } catch {
    return "unknown";
  }
}

export function registerControl(program: Command, io: Io): void {
  program
    .command("cancel")
    .description("stop a running or queued task; its worktree and commits stay")
    .argument("<id>", "task id")
    .action(async (ref: string) => {
      const project = await openProject(io.cwd, { env: io.env });
      try {
        const task = await requireTask(project.store, ref);
        if (task.status === "completed" || task.status === "cancelled") {
          throw new FixpointError("usage", `${task.id} is already ${task.status}`);
        }
        const now = Date.now();
        await project.store.updateTask(
          task.id,
          { status: "cancelled", reason: `cancelled by ${who()}` },
          now,
        );
        await project.store.appendEvents(
          [{ taskId: task.id, runId: null, type: "task.cancelled", data: { by: who(), was: task.status } }],
          now,
        );
        io.out(
          `${task.id} cancelled${task.status === "running" ? " (its worker stops the running stage and commits its work)" : ""}\n`,
        );
      } finally {
        await project.close();
      }
    });

  program
    .command("edit")
    .description("override the final verdict (recorded as an event with who and when)")
    .argument("<id>", "task id")
    .requiredOption("--verdict <verdict>", FINAL_VERDICTS.join(" | "))
    .action(async (ref: string, opts: { verdict: string }) => {
      const verdict = opts.verdict.toUpperCase();
      if (!(FINAL_VERDICTS as readonly string[]).includes(verdict)) {
        throw new FixpointError(
          "usage",
          `unknown verdict \`${opts.verdict}\` (one of ${FINAL_VERDICTS.join(", ")})`,
        );
      }
      const project = await openProject(io.cwd, { env: io.env });
      try {
        const task = await requireTask(project.store, ref);
        if (task.status === "running")
          throw new FixpointError("usage", `${task.id} is running; cancel it first`);
        const now = Date.now();
        const v = verdict as FinalVerdict;
        await project.store.updateTask(
          task.id,
          {
            finalVerdict: v,
            status: isApproval(v) ? "completed" : "needs_human",
            reason: `verdict set by ${who()}`,
          },
          now,
        );
        await project.store.appendEvents(
          [
            {
              taskId: task.id,
              runId: null,
              type: "verdict.overridden",
              data: { from: task.finalVerdict, to: v, by: who(), at: new Date(now).toISOString() },
            },
          ],
          now,
        );
        io.out(`${task.id}: final verdict ${task.finalVerdict ?? "(none)"} → ${v}\n`);
      } finally {
        await project.close();
      }
    });

  for (const decision of ["approve", "reject"] as const) {
    const cmd = program
      .command(decision)
      .description(`${decision} the task's waiting \`human\` stage; the task is queued again`)
      .argument("<id>", "task id");
    if (decision === "reject") cmd.requiredOption("--reason <reason>", "why");
    cmd.action(async (ref: string, opts: { reason?: string }) => {
      const project = await openProject(io.cwd, { env: io.env });
      try {
        const task = await requireTask(project.store, ref);
        if (task.status !== "needs_human" || !task.currentStage) {
          throw new FixpointError("usage", `${task.id} is not waiting for a human (status ${task.status})`);
        }
        const now = Date.now();
        await project.store.setMarker(
          humanMarkerKey(task.id, task.currentStage),
          {
            decision: decision === "approve" ? "approved" : "rejected",
            reason: opts.reason ?? null,
            by: who(),
          },
          now,
        );
        await project.store.updateTask(task.id, { status: "queued", finalVerdict: null, reason: null }, now);
        await project.store.appendEvents(
          [
            {
              taskId: task.id,
              runId: null,
              type: `human.${decision === "approve" ? "approved" : "rejected"}`,
              data: { stage: task.currentStage, by: who(), reason: opts.reason ?? null },
            },
          ],
          now,
        );
        io.out(
          `${task.id}: ${decision === "approve" ? "approved" : "rejected"} at ${task.currentStage}; queued (run \`fixpoint work\`)\n`,
        );
      } finally {
        await project.close();
      }
    });
  }
}
