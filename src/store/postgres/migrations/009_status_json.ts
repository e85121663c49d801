/**
 * `status --json` at 100,000 tasks (issue 10): the server wrote each task's object when it was
 * listed, about 3.5 µs a task, and sent pages of 1,000 objects as one 400 KiB value, which cost the
 * client as much again; the output's redaction net then scanned all 40 MB. Each task now keeps
 * its object in `status_json`, written when a column it prints changes, led by one character, `0`
 * only when no token shape (redact.ts) can match in it, so a page whose rows all start with `0`
 * skips the scan (SQLite keeps the same in `task_json.json` and `token_hint`, migrations 012 and
 * 017).
 *
 * `status_json` is a stored generated column: the server computes it on every INSERT, and on an
 * UPDATE that changes a column it reads, whatever statement writes the row. What claims and
 * completions change is left out of it, so they do not pay for it: `status` and `final_verdict`,
 * and `updated_at`, go into two holes between its three pieces, which the reader fills from those
 * columns (PgTaskOps.listTaskJson; a status and a verdict fixpoint writes hold no token literal).
 * Stored with them, each claim and completion cost the server 0.2 ms more, and the claims
 * benchmark 27% of its rate. A heartbeat, a claim and a verdict now change nothing it reads; a
 * stage's cost, a reason or a cycle do, once per write. It is not indexed, so claims stay HOT
 * updates (migration 007). Adding it rewrites the table under an exclusive lock, which workers
 * wait for: 4.3–4.6 s for 100,000 tasks on a slow machine.
 *
 * `fixpoint_status_json` writes the pieces in docs/cli.md's key order: with the holes filled, the
 * twin of the CLI's `taskJson` (`test/store/contract-task-json.ts` checks them against each other
 * for every store). It is PL/pgSQL: PostgreSQL plans a SQL function's body again for every
 * statement that calls it from a generated column (1.4 ms an update), and an expression written
 * into the column itself was planned for every statement as well; PL/pgSQL keeps its plan for the
 * session. It calls `to_json` and `to_char`, which PostgreSQL marks STABLE for other types and
 * formats; for these arguments (text, and a format with no locale-dependent field, in UTC) they
 * depend on no setting, so the function is declared IMMUTABLE, as a generated column requires.
 *
 * The hint looks for redact.ts's TOKEN_HINT, `sk-` only where a token may start (TOKEN_START), as
 * one regular expression spelled out here; case-insensitive words are written with both cases of
 * each letter, so no locale's case folding is involved. Whatever a token shape can match, it must
 * find; finding more only costs a scan. `test/store/postgres-status-json.test.ts` holds it to the
 * shapes with generated texts and fails when the shapes or TOKEN_HINT change: a new shape needs a
 * migration that replaces the function and recomputes the column.
 */

const str = (param: string) => `COALESCE(to_json(${param})::text, 'null')`;
/** Epoch ms → `"2026-01-31T08:00:00.123Z"`, in integer arithmetic so milliseconds never round. */
const iso = (param: string) =>
  `'"' || to_char(to_timestamp(${param} / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS') || '.' || lpad((${param} % 1000)::text, 3, '0') || 'Z"'`;
const text = (param: string) => `${param}::text`;

/** [key, column, SQL type, how the value prints]. */
type Field = [key: string, column: string, type: string, print: (param: string) => string];

/**
 * The object in docs/cli.md's key order, as the stored pieces between the two places where the
 * reader puts what a claim or a completion changes (`status` and `final_verdict`, then
 * `updated_at`, read beside `status_json`). A NUL-free control character that JSON text never holds raw separates the
 * pieces.
 */
const PIECES: Field[][] = [
  [
    ["id", "id", "text", str],
    ["type", "type", "text", str],
    ["title", "title", "text", str],
  ],
  [
    ["reason", "reason", "text", str],
    ["cycle", "cycle", "integer", text],
    ["max_cycles", "max_cycles", "integer", text],
    ["priority", "priority", "integer", text],
    ["current_stage", "current_stage", "text", str],
    ["workflow", "workflow", "text", str],
    ["base_branch", "base_branch", "text", str],
    ["branch", "branch", "text", str],
    ["worktree", "worktree_path", "text", str],
    ["parent_id", "parent_id", "text", str],
    ["created_at", "created_at", "bigint", iso],
  ],
  [
    // float8's text is the shortest that reads back the same (`0`, `1.5`, `1e-07`).
    ["cost_usd", "cost_usd", "double precision", text],
    ["tokens", "tokens", "bigint", text],
  ],
];
/** Separates the pieces: U+0001, which JSON text escapes (`\u0001`) wherever a value holds it. */
export const PIECE_SEPARATOR = "\u0001";

/** The fields in the object's order. */
export const FIELDS = PIECES.flat();
const param = (column: string) => `p_${column}`;
const PARAMS = FIELDS.map(([, column, type]) => `${param(column)} ${type}`).join(", ");
const piece = (fields: Field[], first: boolean) =>
  fields
    .map(
      ([key, column, , print], i) => `'${first && i === 0 ? "" : ","}"${key}":' || ${print(param(column))}`,
    )
    .join("\n    || ");
const OBJECT = `'{' || ${PIECES.map((fields, i) => piece(fields, i === 0)).join(`\n    || chr(${PIECE_SEPARATOR.codePointAt(0)}) || `)} || '}'`;
const COLUMNS = FIELDS.map(([, column]) => column).join(", ");

/** TOKEN_HINT, `sk-` after TOKEN_START's alternatives (lookbehind written as a group). */
const HINT_RE = [
  String.raw`(^|[^A-Za-z0-9]|\\[nrtbf]|\\u[0-9A-Fa-f]{4})sk-`,
  "gh[pousr]_",
  "github_pat_",
  "xox[abposr]-",
  "eyJ",
  "-----BEGIN",
  "://",
  "A(KIA|SIA|GPA|IDA|ROA|IPA|NPA|NVA|BIA|CCA)",
  "[Bb][Ee][Aa][Rr][Ee][Rr]",
  "[Aa][Uu][Tt][Hh][Oo][Rr][Ii][Zz][Aa][Tt][Ii][Oo][Nn]",
].join("|");

/** The hint's regular expression, for the test that holds it to the token shapes. */
export const tokenHintRegex = HINT_RE;

export const sql = `
CREATE FUNCTION fixpoint_status_json(${PARAMS}) RETURNS text
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $fn$
DECLARE
  object text;
BEGIN
  object := ${OBJECT};
  RETURN CASE WHEN object ~ '${HINT_RE}' THEN '1' ELSE '0' END || object;
END
$fn$;
ALTER TABLE tasks ADD COLUMN status_json text GENERATED ALWAYS AS (fixpoint_status_json(${COLUMNS})) STORED;
`;
