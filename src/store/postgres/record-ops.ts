import type {
  AgentGroup,
  ArtifactInput,
  ArtifactKind,
  LearningFilter,
  StoredArtifact,
} from "../../domain/store.js";
import type { Json, Learning, NewLearning } from "../../domain/types.js";
import { FixpointError } from "../../errors.js";
import { packArtifact } from "../artifact-codec.js";
import { toAgentGroup } from "../sqlite/agent-groups-sql.js";
import { toArtifact } from "../sqlite/artifacts-sql.js";
import { learningSeq, learningValues, toLearning } from "../sqlite/learnings-sql.js";
import { parseJsonOrText } from "../sqlite/tolerant.js";
import { Params, withValues } from "./sql.js";
import { PgTaskOps } from "./task-ops.js";

/**
 * The PostgreSQL store's side records, each keyed by task or by name: markers (idempotency keys),
 * agent process groups, compressed artifacts and learnings. Over the pool or inside a
 * transaction, like every operation built on PgQueries.
 */
export abstract class PgRecordOps extends PgTaskOps {
  // ---- markers

  async getMarker(key: string): Promise<Json | null> {
    const row = (
      await this.rows("reading a marker", "SELECT value FROM markers WHERE key = $1", withValues(key))
    )[0];
    return row === undefined ? null : parseJsonOrText(row.value);
  }

  async getMarkers(keys: readonly string[]): Promise<Map<string, Json>> {
    const out = new Map<string, Json>();
    if (keys.length === 0) return out;
    const p = new Params();
    const sql = `SELECT key, value FROM markers WHERE key = ANY(${p.add([...keys])}::text[])`;
    for (const row of await this.rows("reading markers", sql, p))
      out.set(String(row.key), parseJsonOrText(row.value));
    return out;
  }

  async setMarkerOnce(key: string, value: Json, now: number): Promise<boolean> {
    const p = new Params();
    const sql = `INSERT INTO markers (key, value, created_at) VALUES (${p.add(key)}, ${p.json(value)}, ${p.add(now)})
      ON CONFLICT (key) DO NOTHING`;
    return (await this.count("setting a marker", sql, p)) === 1;
  }

  async setMarker(key: string, value: Json, now: number): Promise<void> {
    const p = new Params();
    const sql = `INSERT INTO markers (key, value, created_at) VALUES (${p.add(key)}, ${p.json(value)}, ${p.add(now)})
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
    await this.count("setting a marker", sql, p);
  }

  // ---- agent process groups

  async recordAgentGroup(g: AgentGroup): Promise<void> {
    const p = new Params();
    const sql = `INSERT INTO agent_groups (task_id, pgid, host, worker_id, start_ticks, started_at)
      VALUES (${p.add(g.taskId)}, ${p.add(g.pgid)}, ${p.add(g.host)}, ${p.add(g.workerId)},
        ${g.startTicks === null ? "NULL" : `${p.add(g.startTicks)}::bigint`}, ${p.add(g.startedAt)})
      ON CONFLICT (task_id, pgid, host) DO UPDATE SET worker_id = excluded.worker_id,
        start_ticks = excluded.start_ticks, started_at = excluded.started_at`;
    await this.count("recording an agent's process group", sql, p);
  }

  async clearAgentGroup(taskId: string, pgid: number, host: string): Promise<void> {
    await this.count(
      "clearing an agent's process group",
      "DELETE FROM agent_groups WHERE task_id = $1 AND pgid = $2 AND host = $3",
      withValues(taskId, pgid, host),
    );
  }

  async listAgentGroups(taskId: string): Promise<AgentGroup[]> {
    const rows = await this.rows(
      "listing agent process groups",
      "SELECT * FROM agent_groups WHERE task_id = $1 ORDER BY started_at, pgid",
      withValues(taskId),
    );
    // BIGINT comes back as a number (connection.ts), so SQLite's row reader fits as it is.
    return rows.map(toAgentGroup);
  }

  // ---- artifacts

  async saveArtifact(a: ArtifactInput, now: number): Promise<void> {
    const packed = packArtifact(a.text);
    const p = new Params();
    // The bytes travel as base64 text and are decoded by the server into the BYTEA column.
    const sql = `INSERT INTO artifacts (task_id, kind, name, data, size, truncated, created_at)
      VALUES (${p.add(a.taskId)}, ${p.add(a.kind)}, ${p.add(a.name)}, decode(${p.add(packed.data.toString("base64"))}, 'base64'),
        ${p.add(packed.size)}, ${p.add(packed.truncated)}, ${p.add(now)})
      ON CONFLICT (task_id, kind, name) DO UPDATE SET data = excluded.data, size = excluded.size,
        truncated = excluded.truncated, created_at = excluded.created_at`;
    await this.count("storing an artifact", sql, p);
  }

  async listArtifacts(
    taskId: string,
    kind?: ArtifactKind,
    names?: readonly string[],
  ): Promise<StoredArtifact[]> {
    const p = new Params();
    let where = `task_id = ${p.add(taskId)}`;
    if (kind !== undefined) where += ` AND kind = ${p.add(kind)}`;
    if (names !== undefined) where += ` AND name = ANY(${p.add([...names])}::text[])`;
    const rows = await this.rows(
      "listing artifacts",
      `SELECT * FROM artifacts WHERE ${where} ORDER BY kind, name`,
      p,
    );
    return rows.map(toArtifact);
  }

  async artifactNames(taskId: string, kind: ArtifactKind): Promise<string[]> {
    const rows = await this.rows(
      "listing artifact names",
      "SELECT name FROM artifacts WHERE task_id = $1 AND kind = $2 ORDER BY name",
      withValues(taskId, kind),
    );
    return rows.map((r) => String(r.name));
  }

  // ---- learnings

  async addLearning(input: NewLearning): Promise<Learning> {
    const v = learningValues(input);
    const p = new Params();
    const sql = `INSERT INTO learnings (repo, text, scope, source, origin, created_at, created_by)
      VALUES (${p.add(v.repo)}, ${p.add(v.text)}, ${p.add(v.scope)}, ${p.add(v.source)}, ${p.add(v.origin)},
        ${p.add(v.createdAt)}, ${p.add(v.createdBy)}) RETURNING *`;
    const row = (await this.rows("recording a learning", sql, p, false))[0];
    if (row === undefined) throw new FixpointError("store", "recording a learning returned nothing");
    return toLearning(row);
  }

  async listLearnings(filter: LearningFilter = {}): Promise<Learning[]> {
    const p = new Params();
    const where: string[] = [];
    if (filter.repo !== undefined) where.push(`repo = ${p.add(filter.repo)}`);
    if (!filter.includeRemoved) where.push("removed_at IS NULL");
    const sql = `SELECT * FROM learnings ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY seq`;
    return (await this.rows("listing learnings", sql, p)).map(toLearning);
  }

  async getLearning(idOrNumber: string): Promise<Learning | null> {
    const seq = learningSeq(idOrNumber);
    if (seq === null) return null;
    const rows = await this.rows(
      "reading a learning",
      "SELECT * FROM learnings WHERE seq = $1",
      withValues(seq),
    );
    return rows[0] === undefined ? null : toLearning(rows[0]);
  }

  async removeLearning(idOrNumber: string, now: number): Promise<Learning | null> {
    const seq = learningSeq(idOrNumber);
    if (seq === null) return null;
    const rows = await this.rows(
      "removing a learning",
      "UPDATE learnings SET removed_at = $1 WHERE seq = $2 AND removed_at IS NULL RETURNING *",
      withValues(now, seq),
      false,
    );
    return rows[0] === undefined ? null : toLearning(rows[0]);
  }

  async recordLearningHit(id: string, now: number): Promise<void> {
    const seq = learningSeq(id);
    if (seq === null) return;
    await this.count(
      "counting a learning's hit",
      "UPDATE learnings SET hits = hits + 1, last_hit_at = $1 WHERE seq = $2 AND removed_at IS NULL",
      withValues(now, seq),
    );
  }
}
