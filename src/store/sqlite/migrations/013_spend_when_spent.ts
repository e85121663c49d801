import { SPEND_UPDATE } from "./003_task_spend.js";

/**
 * A stage record that spent nothing (a gate, a skipped stage, a no-op agent) no longer rewrites its
 * task's row: the spend trigger of 003 ran an UPDATE of `cost_usd` and `tokens` for every stage,
 * and with them the task's listing-index entry and its `task_json` text, only to add zero.
 */
export const SPEND_TRIGGER = `
CREATE TRIGGER stage_executions_spend AFTER INSERT ON stage_executions
WHEN NEW.cost_usd <> 0
  OR NEW.input_tokens + NEW.output_tokens + NEW.cache_read_tokens + NEW.cache_write_tokens <> 0
BEGIN
${SPEND_UPDATE}
END;
`;

export const sql = `
DROP TRIGGER stage_executions_spend;${SPEND_TRIGGER}`;
