/**
 * The version of the last migration in index.ts. Kept apart so that opening a current database
 * (every command) checks its version without loading the migrations' SQL (16 modules, ~20 ms
 * of a `status` process); index.ts refuses to load when the two disagree.
 */
export const LATEST_SCHEMA_VERSION = 20;
