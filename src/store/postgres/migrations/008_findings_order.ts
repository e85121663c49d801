/**
 * The findings read across tasks, newest first (`searchFindings`: the dashboard's findings page),
 * walk an index on `ord` instead of sorting every finding for each page: with a million findings
 * the first page read them all. SQLite reads them by rowid, its table's own order.
 */
export const sql = `
CREATE INDEX IF NOT EXISTS findings_ord ON findings (ord);
`;
