/**
 * `notify` in fixpoint.kdl fires for local runs: `fixpoint work` tells a command or a webhook
 * when a task reaches its verdict; a failing notify is recorded and never fails the task.
 */
import { chmodSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDemoRepo, demoConfig } from "../../src/demo/project.js";
import { openStore } from "../../src/store/open.js";
import { exited, isolatedEnv, runCli, startCli, tempDir } from "../helpers/cli.js";

let root: string;
let repo: string;
let env: NodeJS.ProcessEnv;
const cli = (...args: string[]) => runCli(args, { cwd: repo, env });
const TASK = "Add mean() and median() to src/stats.js, with tests";

beforeEach(() => {
  root = tempDir("fixpoint-notify-");
  repo = join(root, "repo");
  env = isolatedEnv(root);
  createDemoRepo(repo);
  expect(cli("init").code).toBe(0);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const configure = (notify: string) =>
  writeFileSync(join(repo, "fixpoint.kdl"), `${demoConfig()}\nnotify ${JSON.stringify(notify)}\n`);

describe("notify for local runs", () => {
  it("runs the command when `fixpoint work` brings a task to its verdict", () => {
    const log = join(root, "notified.txt");
    const script = join(root, "notify.sh");
    writeFileSync(
      script,
      `#!/bin/sh\n{ echo "$FIXPOINT_EVENT $FIXPOINT_TASK $FIXPOINT_VERDICT"; cat; } >> '${log}'\n`,
    );
    chmodSync(script, 0o755);
    configure(script);
    expect(cli("add", TASK).code).toBe(0);
    expect(cli("work").code).toBe(0);
    expect(readFileSync(log, "utf8")).toMatch(/^task\.finished t-1 APPROVED\nt-1 APPROVED on \S+\n$/);
  });

  it("a failing command is recorded as an event and the task still ends approved", async () => {
    configure("echo nope >&2; exit 7");
    expect(cli("add", TASK).code).toBe(0);
    expect(cli("work").code).toBe(0);
    const store = await openStore("sqlite", repo);
    try {
      expect((await store.getTask("t-1"))?.status).toBe("completed");
      const failed = (await store.listEvents("t-1")).filter((e) => e.type === "notify.failed");
      expect(failed.map((e) => e.data)).toEqual([
        { kind: "task.finished", error: "notify command failed (exit 7)" },
      ]);
    } finally {
      await store.close();
    }
  });

  it("POSTs to a webhook URL", async () => {
    const bodies: string[] = [];
    const server = createServer((req, res) => {
      let body = "";
      req.on("data", (d: Buffer) => {
        body += d.toString();
      });
      req.on("end", () => {
        bodies.push(body);
        res.writeHead(200).end("ok");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      configure(`http://127.0.0.1:${(server.address() as AddressInfo).port}/fixpoint`);
      expect(cli("add", TASK).code).toBe(0);
      const child = startCli(["work"], { cwd: repo, env });
      expect(await exited(child)).toBe(0);
      expect(bodies.map((b) => JSON.parse(b))).toEqual([
        expect.objectContaining({ kind: "task.finished", task_id: "t-1", verdict: "APPROVED" }),
      ]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  }, 60_000);

  it("a notify that is neither a command nor an http(s) URL is a configuration error", () => {
    configure("ftp://example.com/x");
    const r = cli("status");
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("`notify`: `ftp://example.com/x` is not an http(s) URL");
  });
});
