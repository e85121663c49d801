import { type TestDatabase, testDatabase } from "../test/helpers/pg-server.js";

/**
 * A fresh database for a PostgreSQL benchmark: on FIXPOINT_BENCH_DATABASE_URL's server when set
 * (an admin URL; the database is created in it), else on a throwaway server started like the
 * tests' (test/helpers/pg-server.ts).
 */
export function benchDatabase(): Promise<TestDatabase> {
  const admin = process.env.FIXPOINT_BENCH_DATABASE_URL;
  if (admin !== undefined && admin !== "") process.env.FIXPOINT_TEST_DATABASE_URL = admin;
  return testDatabase();
}
