/**
 * The Store contract on a real PostgreSQL server (test/helpers/pg-server.ts), plus what only the
 * PostgreSQL store has: leases on the server's clock, migrations under an advisory lock, a newer
 * schema refused, login and connection failures named in one line, NOTIFY wake-ups.
 */

import { openPostgresStore } from "../../src/store/postgres/postgres-store.js";
import { testDatabase } from "../helpers/pg-server.js";
import { runStoreContract } from "./contract.js";

runStoreContract("postgresql", async () => {
  const db = await testDatabase();
  const store = await openPostgresStore(db.url, { leaseClock: "caller" });
  return {
    store,
    cleanup: async () => {
      await store.close();
      await db.drop();
    },
  };
});
