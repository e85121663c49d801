import { sql as initial } from "./001_initial.js";
import { sql as workers } from "./002_workers.js";
import { sql as agentGroups } from "./003_agent_groups.js";
import { sql as learnings } from "./004_learnings.js";
import { sql as taskPriority } from "./005_task_priority.js";
import { sql as artifacts } from "./006_artifacts.js";
import { sql as hotClaims } from "./007_hot_claims.js";
import { sql as findingsOrder } from "./008_findings_order.js";
import { sql as statusJson } from "./009_status_json.js";
import { sql as statusValues } from "./010_status_values.js";

export interface PgMigration {
  /** Increasing from 1 (versions are assigned up front and may leave gaps); `fixpoint_schema_migrations` records each one applied. */
  version: number;
  name: string;
  sql: string;
}

/**
 * Every PostgreSQL migration, oldest first. Append only, like the SQLite list: a released
 * migration is never edited. The numbering is the PostgreSQL store's own.
 */
export const PG_MIGRATIONS: readonly PgMigration[] = [
  { version: 1, name: "initial", sql: initial },
  { version: 2, name: "workers", sql: workers },
  { version: 3, name: "agent_groups", sql: agentGroups },
  { version: 4, name: "learnings", sql: learnings },
  { version: 5, name: "task_priority", sql: taskPriority },
  { version: 6, name: "artifacts", sql: artifacts },
  { version: 7, name: "hot_claims", sql: hotClaims },
  { version: 8, name: "findings_order", sql: findingsOrder },
  { version: 9, name: "status_json", sql: statusJson },
  { version: 10, name: "status_values", sql: statusValues },
];

/** The last migration's version (not the count: there may be gaps). */
export const PG_LATEST_SCHEMA_VERSION: number = PG_MIGRATIONS.at(-1)?.version ?? 0;
