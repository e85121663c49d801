import { SPEND_TRIGGER } from "./013_spend_when_spent.js";

/**
 * Stage records and events take plain row ids (issue 10). With AUTOINCREMENT every insert also
 * rewrote `sqlite_sequence`, one more page in every stage's commit (10 → 9 frames for a no-op
 * stage). Neither table ever deletes a row, so the next id is still the largest plus one: ids
 * keep increasing and are never reused, which is what readers following `events` by id rely on.
 * Both tables are rebuilt with the same columns, rows and ids, then their index (and the spend
 * trigger of 013) made again.
 */
export const sql = `
CREATE TABLE stage_executions_plain (
  id                 INTEGER PRIMARY KEY,
  run_id             INTEGER NOT NULL REFERENCES runs (id),
  task_id            TEXT NOT NULL REFERENCES tasks (id),
  stage_id           TEXT NOT NULL,
  kind               TEXT NOT NULL,
  visit              INTEGER NOT NULL,
  cycle              INTEGER NOT NULL,
  outcome            TEXT NOT NULL,
  failure_class      TEXT,
  failure_reason     TEXT,
  verdict            TEXT,
  started_at         INTEGER NOT NULL,
  ended_at           INTEGER NOT NULL,
  input_tokens       INTEGER NOT NULL DEFAULT 0,
  output_tokens      INTEGER NOT NULL DEFAULT 0,
  cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
  cache_write_tokens INTEGER NOT NULL DEFAULT 0,
  cost_usd           REAL NOT NULL DEFAULT 0,
  head_before        TEXT,
  head_after         TEXT,
  session_id         TEXT,
  summary            TEXT,
  attempts           INTEGER NOT NULL DEFAULT 1
);
INSERT INTO stage_executions_plain (id, run_id, task_id, stage_id, kind, visit, cycle, outcome,
  failure_class, failure_reason, verdict, started_at, ended_at, input_tokens, output_tokens,
  cache_read_tokens, cache_write_tokens, cost_usd, head_before, head_after, session_id, summary, attempts)
SELECT id, run_id, task_id, stage_id, kind, visit, cycle, outcome, failure_class, failure_reason,
  verdict, started_at, ended_at, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens,
  cost_usd, head_before, head_after, session_id, summary, attempts FROM stage_executions;
DROP TABLE stage_executions;
ALTER TABLE stage_executions_plain RENAME TO stage_executions;
CREATE INDEX stage_executions_task ON stage_executions (task_id, run_id, id);
${SPEND_TRIGGER}
CREATE TABLE events_plain (
  id      INTEGER PRIMARY KEY,
  task_id TEXT NOT NULL REFERENCES tasks (id),
  run_id  INTEGER REFERENCES runs (id),
  ts      INTEGER NOT NULL,
  type    TEXT NOT NULL,
  data    TEXT NOT NULL DEFAULT '{}'
);
INSERT INTO events_plain (id, task_id, run_id, ts, type, data)
  SELECT id, task_id, run_id, ts, type, data FROM events;
DROP TABLE events;
ALTER TABLE events_plain RENAME TO events;
CREATE INDEX events_task ON events (task_id, id);
DELETE FROM sqlite_sequence WHERE name IN ('stage_executions', 'events');
`;
