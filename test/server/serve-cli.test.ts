/** `fixpoint serve` as a user runs it: the URL it prints, a taken port, a bad port. */
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createDemoRepo } from "../../src/demo/project.js";
import { isolatedEnv, runCli, tempDir } from "../helpers/cli.js";
import { startServe } from "./browser.js";

let root: string;
let repo: string;
let env: NodeJS.ProcessEnv;
const stops: (() => Promise<void>)[] = [];

beforeEach(() => {
  root = tempDir("fixpoint-serve-cli-");
  repo = join(root, "repo");
  env = isolatedEnv(root);
  createDemoRepo(repo);
  expect(runCli(["init"], { cwd: repo, env }).code).toBe(0);
});
afterEach(async () => {
  for (const stop of stops.splice(0)) await stop();
  rmSync(root, { recursive: true, force: true });
});

describe("fixpoint serve", () => {
  it("prints its loopback URL and serves the morning report there", async () => {
    const s = await startServe(repo, env);
    stops.push(s.stop);
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const res = await fetch(s.url);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("Morning report");
  });

  it("a second server on a taken port says which port in one line and exits 2", async () => {
    const s = await startServe(repo, env);
    stops.push(s.stop);
    const port = new URL(s.url).port;
    const second = runCli(["serve", "--port", port], { cwd: repo, env, timeoutMs: 20_000 });
    expect(second.code).toBe(2);
    expect(second.stderr.trim().split("\n")).toHaveLength(1);
    expect(second.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
    expect(second.stderr).not.toMatch(/\bat .*\.js:\d+/);
  });

  it("refuses a port that is not a number with exit 2", () => {
    const r = runCli(["serve", "--port", "http"], { cwd: repo, env });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("--port takes 0–65535, not `http`");
  });
});
