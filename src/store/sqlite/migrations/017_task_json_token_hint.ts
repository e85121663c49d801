import { SOURCE_COLUMNS } from "./012_task_json.js";
import { UPDATE_TASK_JSON } from "./015_task_json_filters.js";

/**
 * `status --json` at 100,000 tasks (issue 10): the output's last redaction net (SPEC §13, every
 * printed text scanned for token shapes) cost 60–110 ms of the process, one regex over 40 MB. The
 * scan moves to the write: each `task_json` row keeps `token_hint`, 0 only when no token shape
 * (redact.ts) can match in its text, so a page whose rows are all 0 can skip that scan. The secret
 * values of the printing process's environment are still looked for in every page
 * (redactSecretValues), since they are only known then.
 *
 * HINT looks for TOKEN_HINT's literals: GLOB for those TOKEN_HINT matches by case, LIKE (ASCII
 * case-insensitive; fixpoint never turns `case_sensitive_like` on) for `bearer` and
 * `authorization`, the AWS prefixes by their letters' sets, and `sk-` only where a token may
 * start. Whatever a token shape (redact.ts TOKEN_SHAPES) can match, it must find; finding more
 * only costs a scan. `test/store/sqlite-token-hint.test.ts` holds it to the shapes with generated
 * texts and fails when the shapes or TOKEN_HINT change: a new shape needs a migration that
 * replaces these triggers and recomputes the column. About 4 µs per text (GLOB and LIKE; `instr`
 * and `lower` cost twice as much).
 *
 * The column defaults to 1 (scan). A new text gets its hint from a trigger on `task_json` (the
 * inserts of 015's triggers, and a hand-written row). A task's update recomputes it only when a
 * column whose text the object prints changed: a claim (status, times) and a cost update do not
 * pay for it. `status` counts as such a column only for a value outside the statuses fixpoint
 * writes, none of which holds a literal, and `cost_usd` only when it is not a number (a number
 * prints as digits); the other numbers print through `%d` and dates, which show no text.
 */
const HINT = (text: string) =>
  `((${text} GLOB '*sk-*' AND (${SK_AT_TOKEN_START(text)})) OR ${text} GLOB '*gh[pousr]_*' OR ${text} GLOB '*github_pat_*'
    OR ${text} GLOB '*xox[abposr]-*' OR ${text} GLOB '*eyJ*' OR ${text} GLOB '*-----BEGIN*'
    OR ${text} GLOB '*://*' OR ${text} GLOB '*A[KSGIRNBC][IPDOVC]A*'
    OR ${text} LIKE '%bearer%' OR ${text} LIKE '%authorization%')`;

/**
 * `sk-` where a token may start (redact.ts TOKEN_START: the text's start, after a character that
 * is not a letter or a digit, or right after a `\n`-style or `\u0041`-style escape). Every shape with
 * `sk-` requires it, and branch names and titles hold `task-`, `risk-`, `disk-` often enough that
 * the bare literal would send many pages to the full scan. Tried only when the text has `sk-`.
 */
const SK_AT_TOKEN_START = (text: string) =>
  `${text} GLOB 'sk-*' OR ${text} GLOB '*[^A-Za-z0-9]sk-*' OR ${text} GLOB '*\\[nrtbf]sk-*'
    OR ${text} GLOB '*\\u[0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f][0-9A-Fa-f]sk-*'`;

/** The hint of one text as SQL, for the test that holds it to the token shapes. */
export const tokenHintSql = HINT;

/** The text columns the task object prints, each through json_quote. */
const TEXT_COLUMNS = [
  "id",
  "type",
  "title",
  "final_verdict",
  "reason",
  "current_stage",
  "workflow",
  "base_branch",
  "branch",
  "worktree_path",
  "parent_id",
];
/** The statuses fixpoint writes (TASK_STATUSES), frozen with this migration. */
const KNOWN_STATUSES = "'queued', 'running', 'completed', 'needs_human', 'failed', 'cancelled'";
const PRINTED_TEXT_CHANGED = [
  ...TEXT_COLUMNS.map((c) => `NEW.${c} IS NOT OLD.${c}`),
  `(NEW.status IS NOT OLD.status AND NEW.status NOT IN (${KNOWN_STATUSES}))`,
  `(NEW.cost_usd IS NOT OLD.cost_usd AND typeof(NEW.cost_usd) NOT IN ('integer', 'real'))`,
].join("\n      OR ");

export const sql = `
ALTER TABLE task_json ADD COLUMN token_hint INTEGER NOT NULL DEFAULT 1;
UPDATE task_json SET token_hint = ${HINT("json")};
CREATE TRIGGER task_json_hint_insert AFTER INSERT ON task_json
WHEN ${HINT("NEW.json")} IS NOT NEW.token_hint
BEGIN
  UPDATE task_json SET token_hint = ${HINT("NEW.json")} WHERE seq = NEW.seq;
END;
DROP TRIGGER tasks_json_update;
CREATE TRIGGER tasks_json_update AFTER UPDATE OF ${SOURCE_COLUMNS} ON tasks
BEGIN
  ${UPDATE_TASK_JSON}
  UPDATE task_json SET token_hint = ${HINT("json")}
  WHERE seq = NEW.seq
    AND (${PRINTED_TEXT_CHANGED})
    AND token_hint IS NOT ${HINT("json")};
END;
`;
