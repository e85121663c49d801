import type { AgentResult } from "../../domain/agent.js";
import type { FailureClass } from "../../domain/types.js";

/** Maps an agent's failure to the stage's failure class and one-line reason. */
export function agentFailure(result: AgentResult): { failureClass: FailureClass; failureReason: string } {
  const kind = result.failure?.kind;
  const failureClass: FailureClass =
    kind === "timeout"
      ? "timeout"
      : kind === "cancelled"
        ? "cancelled"
        : kind === "exit_nonzero"
          ? "exit_nonzero"
          : "agent_error";
  return { failureClass, failureReason: result.failure?.message ?? "agent failed" };
}
