/**
 * A throwaway PostgreSQL server for the tests, one per test run, started lazily by the first test
 * file that asks for a database, and a fresh database per caller.
 *
 * - `FIXPOINT_TEST_DATABASE_URL` set: that server is used (databases are created in it).
 * - Otherwise the Debian binaries (`/usr/lib/postgresql/<v>/bin`, or `FIXPOINT_PG_BIN`) run
 *   `initdb` into a temporary folder and `pg_ctl start` on a free loopback port, as the
 *   `postgres` user when the tests run as root (PostgreSQL refuses to run as root).
 * - No binaries and no URL: the test FAILS with a message saying what to install; it never skips.
 *
 * As the vitest globalSetup, `setup` makes the run's folder (inherited by the test processes
 * through FIXPOINT_PG_RUN_DIR) and `teardown` stops the server, if one was started, and removes it.
 * The first test process to take the folder's lock starts the server; the others wait for its URL.
 */
import { execFileSync } from "node:child_process";
import {
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";

const PASSWORD = "fixpoint-test";

function postgresBinDir(): string {
  const configured = process.env.FIXPOINT_PG_BIN;
  if (configured !== undefined && existsSync(join(configured, "initdb"))) return configured;
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const v of versions) if (existsSync(join(root, v, "bin", "initdb"))) return join(root, v, "bin");
  throw new Error(
    "PostgreSQL tests need a server: install the `postgresql` package (initdb under /usr/lib/postgresql/*/bin), set FIXPOINT_PG_BIN, or set FIXPOINT_TEST_DATABASE_URL",
  );
}

const asRoot = typeof process.getuid === "function" && process.getuid() === 0;

/** Runs a PostgreSQL binary, as the `postgres` user when we are root. */
function runPg(bin: string, args: string[]): void {
  const [cmd, argv] = asRoot ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
  execFileSync(cmd, argv, { stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr !== null ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function giveToPostgres(path: string): void {
  if (!asRoot) return;
  const uid = Number(execFileSync("id", ["-u", "postgres"]).toString().trim());
  const gid = Number(execFileSync("id", ["-g", "postgres"]).toString().trim());
  chownSync(path, uid, gid);
}

/** initdb + pg_ctl start in `dir`; returns the admin URL (password over loopback TCP). */
async function startServer(dir: string): Promise<string> {
  const bin = postgresBinDir();
  const data = join(dir, "data");
  const pwfile = join(dir, "pw");
  writeFileSync(pwfile, PASSWORD, { mode: 0o600 });
  giveToPostgres(pwfile);
  runPg(join(bin, "initdb"), [
    "-D",
    data,
    "-U",
    "postgres",
    "--pwfile",
    pwfile,
    "--auth-local=trust",
    "--auth-host=scram-sha-256",
    "-E",
    "UTF8",
    "--locale=C",
    "--no-sync",
  ]);
  const port = await freePort();
  const options = [
    `-p ${port}`,
    "-c listen_addresses=127.0.0.1",
    `-c unix_socket_directories=${dir}`,
    "-c max_connections=300",
    // A throwaway server: durability is not what is tested.
    "-c fsync=off",
    "-c synchronous_commit=off",
    "-c full_page_writes=off",
  ].join(" ");
  runPg(join(bin, "pg_ctl"), [
    "-D",
    data,
    "-l",
    join(dir, "server.log"),
    "-w",
    "-t",
    "60",
    "-o",
    options,
    "start",
  ]);
  return `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/postgres`;
}

export function stopServer(dir: string): void {
  const data = join(dir, "data");
  if (existsSync(join(data, "postmaster.pid"))) {
    try {
      runPg(join(postgresBinDir(), "pg_ctl"), ["-D", data, "-m", "immediate", "-w", "stop"]);
    } catch {
      // Already gone; the folder is removed below either way.
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

let adminUrl: Promise<string> | null = null;

/** The admin URL of this run's server, starting it if no process has yet. */
function serverUrl(): Promise<string> {
  const given = process.env.FIXPOINT_TEST_DATABASE_URL;
  if (given !== undefined && given !== "") return Promise.resolve(given);
  adminUrl ??= (async () => {
    let dir = process.env.FIXPOINT_PG_RUN_DIR;
    if (dir === undefined) {
      // Run outside the globalSetup (e.g. a bench): own server, stopped when this process exits.
      dir = makeRunDir();
      const own = dir;
      process.once("exit", () => stopServer(own));
    }
    const urlFile = join(dir, "url");
    try {
      mkdirSync(join(dir, "lock"));
    } catch {
      for (let waited = 0; !existsSync(urlFile); waited += 100) {
        if (existsSync(join(dir, "failed"))) throw new Error(readFileSync(join(dir, "failed"), "utf8"));
        if (waited > 120_000) throw new Error(`the test PostgreSQL server in ${dir} did not start in 120 s`);
        await sleep(100);
      }
      return readFileSync(urlFile, "utf8");
    }
    try {
      const url = await startServer(dir);
      writeFileSync(urlFile, url);
      return url;
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      writeFileSync(join(dir, "failed"), message);
      throw e;
    }
  })();
  return adminUrl;
}

function makeRunDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "fixpoint-pg-"));
  giveToPostgres(dir);
  return dir;
}

let counter = 0;

export interface TestDatabase {
  url: string;
  /** Drops the database (closing whatever is still connected to it). */
  drop: () => Promise<void>;
}

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: await serverUrl() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A new, empty database on the run's server. */
export async function testDatabase(): Promise<TestDatabase> {
  const name = `fp_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE template0 STRATEGY FILE_COPY`));
  const url = new URL(await serverUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

/** The run's server URL with another user/password, for login-failure tests. */
export async function serverUrlWith(user: string, password: string): Promise<string> {
  const url = new URL(await serverUrl());
  url.username = user;
  url.password = password;
  return url.toString();
}

// ---- vitest globalSetup

export function setup(): void {
  if (process.env.FIXPOINT_TEST_DATABASE_URL) return;
  process.env.FIXPOINT_PG_RUN_DIR = makeRunDir();
}

export function teardown(): void {
  const dir = process.env.FIXPOINT_PG_RUN_DIR;
  if (dir !== undefined) stopServer(dir);
}
