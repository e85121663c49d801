/**
 * The first schema. JSON columns (`budget`, `agents`, `meta`, `sources`, `attempts`, `data`,
 * `state`, `value`) hold text parsed tolerantly on read, so adding a metadata key never needs a
 * migration. No CHECK constraints on enum-like columns: a later version adding a status would
 * otherwise need a table rebuild in SQLite.
 */
export const sql = `
CREATE TABLE tasks (
  id               TEXT PRIMARY KEY,
  seq              INTEGER NOT NULL UNIQUE,
  type             TEXT NOT NULL,
  title            TEXT NOT NULL,
  prompt           TEXT NOT NULL,
  workflow         TEXT NOT NULL,
  repo             TEXT NOT NULL,
  base_branch      TEXT NOT NULL,
  branch           TEXT,
  worktree_path    TEXT,
  status           TEXT NOT NULL DEFAULT 'queued',
  final_verdict    TEXT,
  reason           TEXT,
  max_cycles       INTEGER NOT NULL,
  cycle            INTEGER NOT NULL DEFAULT 0,
  current_stage    TEXT,
  budget           TEXT NOT NULL DEFAULT '{}',
  agents           TEXT NOT NULL DEFAULT '{}',
  meta             TEXT NOT NULL DEFAULT '{}',
  parent_id        TEXT,
  worker_id        TEXT,
  lease_expires_at INTEGER,
  created_at       INTEGER NOT NULL,
  updated_at       INTEGER NOT NULL
);
-- Claims walk this partial index in seq order; it only holds the few live tasks, so a claim
-- stays cheap however many finished tasks the store keeps. The claim query repeats this exact
-- WHERE term so the planner can use it.
CREATE INDEX tasks_claimable ON tasks (seq) WHERE status IN ('queued', 'running');
CREATE INDEX tasks_status_seq ON tasks (status, seq);
CREATE INDEX tasks_parent ON tasks (parent_id) WHERE parent_id IS NOT NULL;

CREATE TABLE runs (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id       TEXT NOT NULL REFERENCES tasks (id),
  kind          TEXT NOT NULL,
  status        TEXT NOT NULL,
  final_verdict TEXT,
  reason        TEXT,
  started_at    INTEGER NOT NULL,
  ended_at      INTEGER,
  meta          TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX runs_task ON runs (task_id, id);

CREATE TABLE stage_executions (
  id                 INTEGER PRIMARY KEY AUTOINCREMENT,
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
CREATE INDEX stage_executions_task ON stage_executions (task_id, run_id, id);

-- Append-only. AUTOINCREMENT so an id is never reused: readers page with "id > afterId".
CREATE TABLE events (
  id      INTEGER PRIMARY KEY AUTOINCREMENT,
  task_id TEXT NOT NULL REFERENCES tasks (id),
  run_id  INTEGER REFERENCES runs (id),
  ts      INTEGER NOT NULL,
  type    TEXT NOT NULL,
  data    TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX events_task ON events (task_id, id);

CREATE TABLE findings (
  task_id        TEXT NOT NULL REFERENCES tasks (id),
  id             TEXT NOT NULL,
  fingerprint    TEXT NOT NULL,
  severity       TEXT NOT NULL,
  category       TEXT NOT NULL,
  title          TEXT NOT NULL,
  body           TEXT NOT NULL,
  file           TEXT,
  line_start     INTEGER,
  line_end       INTEGER,
  suggested_fix  TEXT,
  sources        TEXT NOT NULL DEFAULT '[]',
  status         TEXT NOT NULL,
  first_cycle    INTEGER NOT NULL,
  last_cycle     INTEGER NOT NULL,
  times_reopened INTEGER NOT NULL DEFAULT 0,
  attempts       TEXT NOT NULL DEFAULT '[]',
  note           TEXT,
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL,
  PRIMARY KEY (task_id, id)
);

-- Every checkpoint of a run is kept (cheap, and it lets a person see how a run progressed);
-- readers take the highest seq.
CREATE TABLE checkpoints (
  run_id     INTEGER NOT NULL REFERENCES runs (id),
  seq        INTEGER NOT NULL,
  task_id    TEXT NOT NULL REFERENCES tasks (id),
  state      TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  PRIMARY KEY (run_id, seq)
);

CREATE TABLE markers (
  key        TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
`;
