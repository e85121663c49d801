import type { AgentGroup } from "../../domain/store.js";
import type { Row } from "./rows.js";

export const RECORD_AGENT_GROUP = `
INSERT INTO agent_groups (task_id, pgid, host, worker_id, start_ticks, started_at)
VALUES (@taskId, @pgid, @host, @workerId, @startTicks, @startedAt)
ON CONFLICT (task_id, pgid, host) DO UPDATE SET
  worker_id = excluded.worker_id, start_ticks = excluded.start_ticks, started_at = excluded.started_at`;

export const CLEAR_AGENT_GROUP =
  "DELETE FROM agent_groups WHERE task_id = @taskId AND pgid = @pgid AND host = @host";

export const LIST_AGENT_GROUPS =
  "SELECT * FROM agent_groups WHERE task_id = @taskId ORDER BY started_at, pgid";

export function toAgentGroup(r: Row): AgentGroup {
  return {
    taskId: String(r.task_id),
    pgid: Number(r.pgid),
    host: String(r.host),
    workerId: String(r.worker_id),
    startTicks: typeof r.start_ticks === "number" ? r.start_ticks : null,
    startedAt: Number(r.started_at),
  };
}
