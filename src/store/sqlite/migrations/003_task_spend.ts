/** The trigger's body: a stage record's spend added to its task (013 guards it with a WHEN). */
export const SPEND_UPDATE = `  UPDATE tasks SET
    cost_usd = cost_usd + NEW.cost_usd,
    tokens = tokens + NEW.input_tokens + NEW.output_tokens + NEW.cache_read_tokens + NEW.cache_write_tokens
  WHERE id = NEW.task_id;`;

/**
 * What each task has cost, kept on the task row so listing 10,000 tasks does not sum their stage
 * records. A trigger adds every stage record's spend in the same transaction that inserts it;
 * existing databases are backfilled from their stage records.
 */
export const sql = `
ALTER TABLE tasks ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0;
ALTER TABLE tasks ADD COLUMN tokens INTEGER NOT NULL DEFAULT 0;
UPDATE tasks SET
  cost_usd = (SELECT COALESCE(SUM(cost_usd), 0) FROM stage_executions s WHERE s.task_id = tasks.id),
  tokens = (SELECT COALESCE(SUM(input_tokens + output_tokens + cache_read_tokens + cache_write_tokens), 0)
              FROM stage_executions s WHERE s.task_id = tasks.id);
CREATE TRIGGER stage_executions_spend AFTER INSERT ON stage_executions
BEGIN
${SPEND_UPDATE}
END;
`;
