/** Learnings per repository, as SQLite's migration 009. */
export const sql = `
CREATE TABLE learnings (
  seq         BIGSERIAL PRIMARY KEY,
  repo        TEXT NOT NULL,
  text        TEXT NOT NULL,
  scope       TEXT,
  source      TEXT NOT NULL,
  origin      TEXT,
  created_at  BIGINT NOT NULL,
  created_by  TEXT NOT NULL,
  hits        INTEGER NOT NULL DEFAULT 0,
  last_hit_at BIGINT,
  removed_at  BIGINT
);
CREATE INDEX learnings_by_repo ON learnings (repo, seq);
`;
