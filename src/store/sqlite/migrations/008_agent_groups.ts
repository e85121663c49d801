/**
 * The process groups of running agents, per task, with the host they run on: a worker that takes
 * a task over (its previous worker died) kills a recorded group that is still alive on this host
 * before it touches the worktree, so two agents never edit one worktree. `start_ticks` is the
 * group leader's start time (from /proc) when known, so a reused pid is never mistaken for it.
 */
export const sql = `
CREATE TABLE agent_groups (
  task_id     TEXT NOT NULL REFERENCES tasks(id) ON DELETE CASCADE,
  pgid        INTEGER NOT NULL,
  host        TEXT NOT NULL,
  worker_id   TEXT NOT NULL,
  start_ticks INTEGER,
  started_at  INTEGER NOT NULL,
  PRIMARY KEY (task_id, pgid, host)
);
`;
