import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium } from "playwright-core";
import { exited, startCli, waitFor } from "../helpers/cli.js";

export const CHROMIUM = "/usr/bin/chromium";

/** Debian's Chromium, headless, with a fresh profile in a temp folder (removed by `close`). */
export async function launchChromium(): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
  const profile = mkdtempSync(join(tmpdir(), "fixpoint-chromium-"));
  try {
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      viewport: { width: 1280, height: 900 },
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    });
    return {
      context,
      close: async () => {
        await context.close();
        rmSync(profile, { recursive: true, force: true });
      },
    };
  } catch (e) {
    rmSync(profile, { recursive: true, force: true });
    throw e;
  }
}

/** `fixpoint serve --port 0` in `repo`; resolves with its printed URL once it listens. */
export async function startServe(
  repo: string,
  env: NodeJS.ProcessEnv,
  args: string[] = [],
): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const child = startCli(["serve", "--port", "0", ...args], { cwd: repo, env });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
    await exited(child);
  };
  try {
    await waitFor(
      () => /fixpoint dashboard: http/.test(child.output()) || child.exitCode !== null,
      20_000,
      "serve to listen",
    );
    const url = /fixpoint dashboard: (http\S+)/.exec(child.output())?.[1];
    if (!url) throw new Error(`fixpoint serve did not start: ${child.output()}`);
    return { url: url.replace(/\?token=.*/, ""), child, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
