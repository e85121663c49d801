import { sql as initial } from "./001_initial.js";
import { sql as claimIndexes } from "./002_claim_indexes.js";
import { sql as taskSpend } from "./003_task_spend.js";
import { sql as leaseToken } from "./004_lease_token.js";
import { sql as taskListing } from "./006_task_listing.js";
import { sql as workers } from "./007_workers.js";
import { sql as agentGroups } from "./008_agent_groups.js";
import { sql as learnings } from "./009_learnings.js";
import { sql as taskPriority } from "./010_task_priority.js";
import { sql as artifacts } from "./011_artifacts.js";
import { sql as taskJson } from "./012_task_json.js";
import { sql as spendWhenSpent } from "./013_spend_when_spent.js";
import { sql as fewerPagesPerWrite } from "./014_fewer_pages_per_write.js";
import { sql as taskJsonFilters } from "./015_task_json_filters.js";
import { sql as plainRowIds } from "./016_plain_row_ids.js";
import { sql as taskJsonTokenHint } from "./017_task_json_token_hint.js";
import { sql as taskLines } from "./018_task_lines.js";
import { sql as taskTotals } from "./019_task_totals.js";
import { sql as noStatusSeqIndex } from "./020_no_status_seq_index.js";
import { LATEST_SCHEMA_VERSION } from "./latest.js";

export interface Migration {
  /** Increasing from 1; the database's `user_version` is the last one applied. */
  version: number;
  name: string;
  sql: string;
}

/**
 * Every migration, oldest first. Append only: a released migration is never edited, because
 * databases that already applied it would silently differ from new ones.
 */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: "initial", sql: initial },
  { version: 2, name: "claim_indexes", sql: claimIndexes },
  { version: 3, name: "task_spend", sql: taskSpend },
  { version: 4, name: "lease_token", sql: leaseToken },
  { version: 6, name: "task_listing", sql: taskListing },
  { version: 7, name: "workers", sql: workers },
  { version: 8, name: "agent_groups", sql: agentGroups },
  { version: 9, name: "learnings", sql: learnings },
  { version: 10, name: "task_priority", sql: taskPriority },
  { version: 11, name: "artifacts", sql: artifacts },
  { version: 12, name: "task_json", sql: taskJson },
  { version: 13, name: "spend_when_spent", sql: spendWhenSpent },
  { version: 14, name: "fewer_pages_per_write", sql: fewerPagesPerWrite },
  { version: 15, name: "task_json_filters", sql: taskJsonFilters },
  { version: 16, name: "plain_row_ids", sql: plainRowIds },
  { version: 17, name: "task_json_token_hint", sql: taskJsonTokenHint },
  { version: 18, name: "task_lines", sql: taskLines },
  { version: 19, name: "task_totals", sql: taskTotals },
  { version: 20, name: "no_status_seq_index", sql: noStatusSeqIndex },
];

// The last migration's version (not the count: versions are assigned up front and may leave gaps).
if (MIGRATIONS.at(-1)?.version !== LATEST_SCHEMA_VERSION) {
  throw new Error(
    `migrations/latest.ts says ${LATEST_SCHEMA_VERSION}; the last migration is ${MIGRATIONS.at(-1)?.version}`,
  );
}

export { LATEST_SCHEMA_VERSION };
