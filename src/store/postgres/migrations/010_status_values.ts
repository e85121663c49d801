/**
 * `status --json` at 100,000 tasks (issue 10): of the 38 MB a listing's COPY sent, the keys of
 * each object were more than half, the same sixteen keys 100,000 times, and the server's time and
 * the socket's both grow with the bytes. `status_json` now holds the token hint and the object's
 * values only, each as the JSON text it prints, in docs/cli.md's key order, separated by U+0001
 * (which JSON text escapes wherever a value holds it). The reader writes the keys between them,
 * with the status and final verdict after the title and the update time after `created_at`, as
 * before (task-json-sql.ts's STATUS_KEYS, task-json-page.ts, native/copy-json.cc).
 *
 * The hint is the same expression over the values as migration 009's over the object: no key
 * holds or ends what it looks for, and each value is preceded by the separator where the object
 * had a `:`, neither a letter nor a digit. The column keeps its name, so `left(status_json, 1)`
 * still reads the hint (task-line-page.ts). PostgreSQL 15 cannot change a generated column's
 * expression, so the column is dropped and added again, which rewrites the table under an
 * exclusive lock once, as migration 009 did.
 */
import { FIELDS, PIECE_SEPARATOR, tokenHintRegex } from "./009_status_json.js";

/** [key, column, SQL type, how the value prints], in the object's order: migration 009's. */
const VALUES = FIELDS;

/** The keys in the order the values are stored, for the test that holds the readers to them. */
export const STORED_KEYS: readonly string[] = VALUES.map(([key]) => key);

const param = (column: string) => `p_${column}`;
const PARAMS = VALUES.map(([, column, type]) => `${param(column)} ${type}`).join(", ");
const COLUMNS = VALUES.map(([, column]) => column).join(", ");
const OBJECT_VALUES = VALUES.map(([, column, , print]) => print(param(column))).join(
  `\n    || chr(${PIECE_SEPARATOR.codePointAt(0)}) || `,
);
/** Migration 009's function, dropped with the column it computed. */
const OLD_PARAMS =
  "text, text, text, text, integer, integer, integer, text, text, text, text, text, text, bigint, double precision, bigint";

export const sql = `
CREATE FUNCTION fixpoint_status_values(${PARAMS}) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
DECLARE
  v text;
BEGIN
  v := ${OBJECT_VALUES};
  RETURN CASE WHEN v ~ '${tokenHintRegex}' THEN '1' ELSE '0' END || v;
END
$fn$;
ALTER TABLE tasks DROP COLUMN status_json;
ALTER TABLE tasks ADD COLUMN status_json text GENERATED ALWAYS AS (fixpoint_status_values(${COLUMNS})) STORED;
DROP FUNCTION fixpoint_status_json(${OLD_PARAMS});
`;
