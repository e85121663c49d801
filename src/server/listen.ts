import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import type { Hono } from "hono";
import { FixpointError } from "../errors.js";

export interface Listening {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Serves the app on host:port (0 picks a free port). A taken port fails with
 * FixpointError("usage") naming it (exit 2), never a stack trace.
 */
export function listen(app: Hono, host: string, port: number): Promise<Listening> {
  const server: Server = createServer(getRequestListener(app.fetch));
  return new Promise((resolve, reject) => {
    server.once("error", (e: NodeJS.ErrnoException) => {
      if (e.code === "EADDRINUSE") {
        reject(
          new FixpointError(
            "usage",
            `port ${port} on ${host} is already in use (another \`fixpoint serve\`?); pick another with --port`,
          ),
        );
      } else if (e.code === "EADDRNOTAVAIL" || e.code === "ENOTFOUND" || e.code === "EACCES") {
        reject(new FixpointError("usage", `cannot listen on ${host}:${port} (${e.code})`));
      } else
        reject(
          new FixpointError("environment", `cannot listen on ${host}:${port}: ${e.message}`, { cause: e }),
        );
    });
    server.listen(port, host, () => {
      const actual = (server.address() as AddressInfo).port;
      const shown = host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
      resolve({
        url: `http://${shown}:${actual}/`,
        port: actual,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
