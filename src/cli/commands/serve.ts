import { spawn } from "node:child_process";
import type { Command } from "commander";
import { osUser } from "../../app/context.js";
import { createFixpoint } from "../../app/fixpoint.js";
import { FixpointError } from "../../errors.js";
import { accessFor } from "../../server/access.js";
import { createDashboard } from "../../server/app.js";
import { createAppApi } from "../../server/app-api.js";
import { listen } from "../../server/listen.js";
import { newSecret } from "../../server/security.js";
import type { Io } from "../io.js";

const DEFAULT_PORT = 7420;

function parsePort(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PORT;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new FixpointError("usage", `--port takes 0–65535, not \`${value}\``);
  return n;
}

/** Opens the URL in the user's browser; failing to is not an error (the URL is printed). */
function openBrowser(url: string): void {
  const cmd = process.platform === "darwin" ? "open" : process.platform === "win32" ? "explorer" : "xdg-open";
  const child = spawn(cmd, [url], { stdio: "ignore", detached: true });
  child.on("error", () => {});
  child.unref();
}

export function registerServe(program: Command, io: Io): void {
  program
    .command("serve")
    .description(
      "the live web dashboard: morning report, task pages, findings and actions (docs/dashboard.md)",
    )
    .option(
      "--host <host>",
      "address to listen on; anything but loopback requires the access token",
      "127.0.0.1",
    )
    .option("--port <port>", `port (0 picks a free one; default ${DEFAULT_PORT})`)
    .option("--open", "open the dashboard in a browser")
    .action(async (opts: { host: string; port?: string; open?: boolean }) => {
      const port = parsePort(opts.port);
      const { token, fromEnv, loopbackOnly } = accessFor(opts.host, io.env);
      const actor = `${osUser()} (dashboard)`;
      const fixpoint = await createFixpoint({ cwd: io.cwd, env: io.env, actor, init: false });
      try {
        const app = createDashboard({
          api: createAppApi(fixpoint, { actor }),
          csrf: newSecret(),
          token,
          loopbackOnly,
        });
        const server = await listen(app, opts.host, port);
        const url = token === undefined ? server.url : `${server.url}?token=${encodeURIComponent(token)}`;
        io.out(`fixpoint dashboard: ${url}\n`);
        if (token !== undefined && !fromEnv) {
          io.out(
            "  listening beyond loopback: every request needs this token (set FIXPOINT_SERVE_TOKEN to choose it)\n",
          );
        }
        if (opts.open) openBrowser(url);
        await new Promise<void>((resolve) => {
          process.once("SIGINT", resolve);
          process.once("SIGTERM", resolve);
        });
        await server.close();
      } finally {
        await fixpoint.close();
      }
    });
}
