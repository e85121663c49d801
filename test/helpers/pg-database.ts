import { onTestFinished } from "vitest";
import { type TestDatabase, testDatabase } from "./pg-server.js";

/** A new, empty database on the test run's server, dropped when the current test finishes, passed or failed. */
export async function databaseForTest(): Promise<TestDatabase> {
  const db = await testDatabase();
  onTestFinished(() => db.drop());
  return db;
}
