/**
 * What a PostgreSQL test opens on the run's server (test/helpers/pg-server.ts): databases of its
 * own, stores and extra sessions, closed and dropped after each test. Call at a test file's top
 * level, where vitest takes its `afterEach`.
 */
import pg from "pg";
import { afterEach } from "vitest";
import type { Store } from "../../src/domain/store.js";
import { openPostgresStore } from "../../src/store/postgres/postgres-store.js";
import { type TestDatabase, testDatabase } from "../helpers/pg-server.js";

export function pgFixtures() {
  const sessions: pg.Client[] = [];
  const opened: Store[] = [];
  const databases: TestDatabase[] = [];
  afterEach(async () => {
    for (const c of sessions.splice(0)) await c.end();
    for (const s of opened.splice(0)) await s.close();
    for (const d of databases.splice(0)) await d.drop();
  });
  return {
    /** A database of the test's own, dropped after it. */
    async freshDb(): Promise<TestDatabase> {
      const db = await testDatabase();
      databases.push(db);
      return db;
    },
    /** The store on `url`, closed after the test. */
    async open(url: string, opts: Parameters<typeof openPostgresStore>[1] = {}): Promise<Store> {
      const store = await openPostgresStore(url, opts);
      opened.push(store);
      return store;
    },
    /** A session of its own on `url`, beside the store's (hand edits, locks), ended after the test. */
    async session(url: string): Promise<pg.Client> {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      sessions.push(c);
      return c;
    },
  };
}
