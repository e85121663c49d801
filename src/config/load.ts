import { readFile as readFileCallback } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { type Diagnostic, DiagnosticsError, errorMessage, FixpointError } from "../errors.js";
import { builtinLayer } from "./defaults.js";
import { envLayer } from "./env.js";
import { type ConfigFlags, flagsLayer } from "./flags.js";
import type { ConfigLayer } from "./layer.js";
import { mergeLayers } from "./merge.js";
import { readConfigLayer } from "./parse.js";
import { fixpointHome, homeFrom, resolvePath } from "./paths.js";
import type { Config } from "./types.js";

export type { ConfigFlags } from "./flags.js";

export const PROJECT_CONFIG_FILE = "fixpoint.kdl";

export interface LoadConfigOptions {
  projectRoot: string;
  /** Default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Overrides where the user file is looked for (see `userConfigPath`). */
  userConfigPath?: string;
  flags?: ConfigFlags;
  /** Relative paths in the environment and flags start here; default `process.cwd()`. */
  cwd?: string;
}

/**
 * The configuration, layered lowest first: built-in defaults < user file < project
 * `fixpoint.kdl` < `FIXPOINT_*` environment < flags. Missing files are skipped, except a user
 * file named by `FIXPOINT_USER_CONFIG`. Problems in both files are reported together as one
 * `DiagnosticsError("config")`; bad environment values are a `config` error naming the variable,
 * bad flags a `usage` error naming the flag.
 */
export async function loadConfig(opts: LoadConfigOptions): Promise<Config> {
  const env = opts.env ?? process.env;
  const home = homeFrom(env);
  const cwd = opts.cwd ?? process.cwd();
  const layers: ConfigLayer[] = [builtinLayer(fixpointHome(env))];
  const sources: string[] = [];
  const diagnostics: Diagnostic[] = [];
  const explicitUser = opts.userConfigPath === undefined && nonEmpty(env.FIXPOINT_USER_CONFIG) !== undefined;
  const files = [
    { path: opts.userConfigPath ?? userConfigPath(env, cwd), required: explicitUser },
    { path: join(opts.projectRoot, PROJECT_CONFIG_FILE), required: false },
  ];
  for (const file of files) {
    const text = await readConfigFile(file.path, file.required);
    if (text === undefined) continue;
    const read = readConfigLayer(text, file.path, { home });
    diagnostics.push(...read.diagnostics);
    layers.push(read.layer);
    sources.push(file.path);
  }
  if (diagnostics.length > 0) throw new DiagnosticsError("config", diagnostics);
  layers.push(envLayer(env, cwd));
  if (opts.flags !== undefined) layers.push(flagsLayer(opts.flags, { cwd, home }));
  return mergeLayers(layers, sources);
}

/**
 * The user file: `$FIXPOINT_USER_CONFIG` when set, else `$XDG_CONFIG_HOME/fixpoint/config.kdl`,
 * else `~/.config/fixpoint/config.kdl`.
 */
export function userConfigPath(env: NodeJS.ProcessEnv, cwd: string): string {
  const home = homeFrom(env);
  const explicit = nonEmpty(env.FIXPOINT_USER_CONFIG);
  if (explicit !== undefined) return resolvePath(explicit, cwd, home);
  const xdg = nonEmpty(env.XDG_CONFIG_HOME);
  return join(
    xdg !== undefined ? resolvePath(xdg, cwd, home) : join(home, ".config"),
    "fixpoint",
    "config.kdl",
  );
}

/** node:fs's, promised: every command reads its config, and `node:fs/promises` costs 1.5 ms to load. */
const readFile = promisify(readFileCallback);

async function readConfigFile(path: string, required: boolean): Promise<string | undefined> {
  try {
    return await readFile(path, "utf8");
  } catch (e) {
    const code = e instanceof Error && "code" in e ? e.code : undefined;
    if (code === "ENOENT" && !required) return undefined;
    throw new FixpointError("config", `cannot read config file ${path}: ${errorMessage(e)}`, { cause: e });
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}
