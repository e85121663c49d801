import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempDir } from "../../test/helpers/temp.js";
import { createProcessRunner } from "../util/process-runner.js";
import { createNotifier, isWebhook } from "./notifier.js";

const SECRET = "s3cr3t-value-0123456789";
const env = { PATH: process.env.PATH, MY_API_TOKEN: SECRET };
const message = {
  kind: "task.needs_human",
  taskId: "t-7",
  summary: `t-7 needs you: cycle limit reached; $(touch pwned) \`touch pwned2\` key ${SECRET}`,
  verdict: "MAX_CYCLES_REACHED",
  pr: 12,
  details: "2 blocking findings left",
};

let dir: string;
beforeEach(() => {
  dir = makeTempDir("notify-");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("notify command", () => {
  it("runs the user's command with the message on stdin and the facts in the environment, never in the command", async () => {
    const script = join(dir, "notify.sh");
    const log = join(dir, "log.txt");
    writeFileSync(
      script,
      `#!/bin/sh\n{ echo "event=$FIXPOINT_EVENT task=$FIXPOINT_TASK verdict=$FIXPOINT_VERDICT pr=$FIXPOINT_PR"; cat; } > '${log}'\n`,
    );
    chmodSync(script, 0o755);
    const n = createNotifier(script, { runner: createProcessRunner(), cwd: dir, env });
    expect(await n.notify(message)).toEqual({ ok: true });
    const out = readFileSync(log, "utf8");
    expect(out).toBe(
      "event=task.needs_human task=t-7 verdict=MAX_CYCLES_REACHED pr=12\n" +
        "t-7 needs you: cycle limit reached; $(touch pwned) `touch pwned2` key [REDACTED]\n2 blocking findings left\n",
    );
    expect(existsSync(join(dir, "pwned"))).toBe(false);
    expect(existsSync(join(dir, "pwned2"))).toBe(false);
  });

  it("reports a failing or missing command as data, without throwing", async () => {
    const runner = createProcessRunner();
    expect(await createNotifier("exit 3", { runner, cwd: dir, env }).notify(message)).toEqual({
      ok: false,
      error: "notify command failed (exit 3)",
    });
    const slow = createNotifier("sleep 5", { runner, cwd: dir, env, timeoutMs: 200 });
    expect(await slow.notify(message)).toEqual({ ok: false, error: "notify command failed (timed out)" });
  });
});

describe("notify webhook", () => {
  let server: Server;
  let url: string;
  const received: { method?: string; type?: string; body: string }[] = [];
  let answer = 204;
  let hang = false;

  beforeEach(async () => {
    received.length = 0;
    answer = 204;
    hang = false;
    server = createServer((req: IncomingMessage, res) => {
      let body = "";
      req.on("data", (d: Buffer) => {
        body += d.toString();
      });
      req.on("end", () => {
        received.push({ method: req.method, type: req.headers["content-type"], body });
        if (!hang) res.writeHead(answer).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  });
  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it("POSTs the notification as JSON, redacted", async () => {
    expect(isWebhook(url)).toBe(true);
    const n = createNotifier(url, { runner: createProcessRunner(), cwd: dir, env });
    expect(await n.notify(message)).toEqual({ ok: true });
    expect(received).toHaveLength(1);
    expect(received[0]?.method).toBe("POST");
    expect(received[0]?.type).toBe("application/json");
    expect(JSON.parse(received[0]?.body ?? "")).toEqual({
      kind: "task.needs_human",
      task_id: "t-7",
      summary: "t-7 needs you: cycle limit reached; $(touch pwned) `touch pwned2` key [REDACTED]",
      verdict: "MAX_CYCLES_REACHED",
      url: null,
      pr: 12,
      details: "2 blocking findings left",
    });
  });

  it("returns an error status, a refused connection and a timeout as data", async () => {
    const n = createNotifier(url, { runner: createProcessRunner(), cwd: dir, env, timeoutMs: 300 });
    answer = 500;
    expect(await n.notify(message)).toEqual({ ok: false, error: "notify webhook answered HTTP 500" });
    hang = true;
    expect(await n.notify(message)).toEqual({ ok: false, error: "notify webhook failed: timed out" });
    const closed = createNotifier("http://127.0.0.1:9/nothing", {
      runner: createProcessRunner(),
      cwd: dir,
      env,
    });
    const r = await closed.notify(message);
    expect(r.ok).toBe(false);
  });
});
