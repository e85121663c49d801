/**
 * A fake GitHub on 127.0.0.1 (random port) for tests: REST under `/` and `/api/v3` (GHE style),
 * GraphQL at `/graphql` and `/api/graphql`. It records every request, checks the token, and can
 * be told to fail or hang on chosen routes.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type FaultSpec, Faults, type RequestKey } from "./faults.js";
import { graphqlOp, handleGraphql } from "./graphql.js";
import { handleRest, type Reply } from "./rest.js";
import { createSeeder, type Seeder } from "./seed.js";
import { type FakeRepo, FakeWorld } from "./state.js";

export interface RecordedRequest {
  method: string;
  /** Without the `/api/v3` prefix, with the query. */
  path: string;
  pathname: string;
  query: Record<string, string>;
  body: unknown;
  graphqlOp?: string;
  authorization: string | undefined;
  at: number;
}

export interface StartOptions {
  /** The repository created at start; default `acme/shop`. */
  repo?: string;
  /** The only token accepted; default `test-token`. */
  token?: string;
  /** The login that token belongs to; default `fixpoint-bot`. */
  viewer?: string;
}

export interface FakeGithub extends Seeder {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** `http://127.0.0.1:<port>/api/v3` — a GHE-style base URL. */
  gheUrl: string;
  token: string;
  repo: string;
  world: FakeWorld;
  requests: RecordedRequest[];
  inject(spec: FaultSpec): void;
  /** Matching requests are never answered (until `close`). */
  hang(route: RegExp | string, times?: number): void;
  clearFaults(): void;
  close(): Promise<void>;
}

export async function startFakeGithub(opts: StartOptions = {}): Promise<FakeGithub> {
  const world = new FakeWorld();
  const repoName = opts.repo ?? "acme/shop";
  const defaultRepo: FakeRepo = world.addRepo(repoName);
  const token = opts.token ?? "test-token";
  const viewer = opts.viewer ?? "fixpoint-bot";
  const faults = new Faults();
  const requests: RecordedRequest[] = [];

  const server = createServer((req, res) => {
    readBody(req)
      .then((raw) => respond(req, res, raw))
      .catch((e: unknown) => send(res, { status: 500, body: { message: String(e) } }));
  });

  function respond(req: IncomingMessage, res: ServerResponse, raw: string): void {
    const reply = answer(req, raw);
    if (reply) send(res, reply);
  }

  /** The reply to a request, or undefined to leave it hanging. */
  function answer(req: IncomingMessage, raw: string): Reply | undefined {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const ghe = url.pathname.startsWith("/api/");
    const pathname = url.pathname.replace(/^\/api\/v3(?=\/)/, "").replace(/^\/api\/graphql$/, "/graphql");
    const method = req.method ?? "GET";
    const body = parseJson(raw);
    const isGraphql = pathname === "/graphql" && method === "POST";
    const query = typeof body.query === "string" ? body.query : "";
    const op = isGraphql ? (graphqlOp(query) ?? "unknown") : undefined;
    const methodPath = `${method} ${pathname}`;
    const key: RequestKey = { key: op ? `${methodPath} ${op}` : methodPath, methodPath, pathname };
    requests.push({
      method,
      path: `${pathname}${url.search}`,
      pathname,
      query: Object.fromEntries(url.searchParams),
      body,
      ...(op ? { graphqlOp: op } : {}),
      authorization: req.headers.authorization,
      at: Date.now(),
    });
    if (faults.takeHang(key)) return undefined;
    const injected = faults.takeFault(key);
    if (injected) return injected;
    const auth = req.headers.authorization ?? "";
    if (auth.replace(/^(token|bearer)\s+/i, "") !== token) {
      return { status: 401, body: { message: "Bad credentials" } };
    }
    if (isGraphql) {
      const vars = typeof body.variables === "object" && body.variables !== null ? body.variables : {};
      return handleGraphql(world, query, vars as Record<string, unknown>);
    }
    const linkBase = `http://${req.headers.host ?? "127.0.0.1"}${ghe ? "/api/v3" : ""}`;
    return handleRest(world, { method, pathname, query: url.searchParams, body, linkBase, viewer });
  }

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    gheUrl: `${url}/api/v3`,
    token,
    repo: repoName,
    world,
    requests,
    inject: (spec) => faults.inject(spec),
    hang: (route, times) => faults.hang(route, times),
    clearFaults: () => faults.clear(),
    ...createSeeder(world, defaultRepo),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((e) => (e ? reject(e) : resolve()));
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function parseJson(raw: string): Record<string, unknown> {
  if (raw.trim() === "") return {};
  try {
    const v: unknown = JSON.parse(raw);
    return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.destroyed) return;
  const text = reply.body === undefined ? "" : JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    "content-type": "application/json; charset=utf-8",
    ...reply.headers,
  });
  res.end(text);
}
