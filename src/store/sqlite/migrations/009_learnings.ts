/**
 * Learnings (issue 16): short statements per repository that reviewers are told, with the finding
 * each came from (`origin`, JSON) so a repeated finding is dismissed even after its task is gone.
 * The id is `L-<seq>`; a removed learning keeps its row (`removed_at`) so its id is never reused.
 */
export const sql = `
CREATE TABLE learnings (
  seq         INTEGER PRIMARY KEY AUTOINCREMENT,
  repo        TEXT NOT NULL,
  text        TEXT NOT NULL,
  scope       TEXT,
  source      TEXT NOT NULL,
  origin      TEXT,
  created_at  INTEGER NOT NULL,
  created_by  TEXT NOT NULL,
  hits        INTEGER NOT NULL DEFAULT 0,
  last_hit_at INTEGER,
  removed_at  INTEGER
);
CREATE INDEX learnings_by_repo ON learnings (repo, seq);
`;
