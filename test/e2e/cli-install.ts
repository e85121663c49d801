import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, rename, rm } from "node:fs/promises";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

/**
 * Installs the real agent CLIs for the end-to-end suite, at PINNED versions, into a cache
 * outside the clone and outside the package's dependencies:
 * `${FIXPOINT_E2E_CACHE:-~/.cache/fixpoint-e2e}/<pkg>@<version>` (claude-code ≈ 360 MB and codex
 * ≈ 400 MB: they ship native binaries as optional dependencies). An install is reused when its
 * binary is present; a new one goes to a temporary folder renamed into place, so an interrupted
 * install is never mistaken for a finished one.
 */
export const PINNED = {
  "claude-code": { pkg: "@anthropic-ai/claude-code", version: "2.1.330", bin: "claude" },
  codex: { pkg: "@openai/codex", version: "0.169.0", bin: "codex" },
  pi: { pkg: "@mariozechner/pi-coding-agent", version: "0.73.1", bin: "pi" },
} as const;

export type CliName = keyof typeof PINNED;

const run = promisify(execFile);

export function cacheRoot(): string {
  return process.env.FIXPOINT_E2E_CACHE ?? join(homedir(), ".cache", "fixpoint-e2e");
}

export function installDir(name: CliName): string {
  const { pkg, version } = PINNED[name];
  return join(cacheRoot(), `${pkg}@${version}`);
}

export function binPath(name: CliName): string {
  return join(installDir(name), "node_modules", ".bin", PINNED[name].bin);
}

/** Installs one CLI if it is not cached yet; returns the path of its executable. */
export async function installCli(name: CliName): Promise<string> {
  const bin = binPath(name);
  if (existsSync(bin)) return bin;
  const { pkg, version } = PINNED[name];
  const dir = installDir(name);
  const staging = `${dir}.partial-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await run(
    "npm",
    ["install", "--prefix", staging, "--no-audit", "--no-fund", "--loglevel=error", `${pkg}@${version}`],
    {
      maxBuffer: 16 * 1024 * 1024,
      timeout: 15 * 60_000,
    },
  );
  await rm(dir, { recursive: true, force: true });
  await rename(staging, dir);
  return bin;
}

/** Installs the three CLIs one after the other (2 cores: no parallel npm installs). */
export async function installClis(): Promise<Record<CliName, string>> {
  return {
    "claude-code": await installCli("claude-code"),
    codex: await installCli("codex"),
    pi: await installCli("pi"),
  };
}
