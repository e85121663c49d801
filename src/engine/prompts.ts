import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FixpointError } from "../errors.js";

/**
 * Prompt templates: Markdown files shipped in the package's `prompts/` folder, overridable per
 * project in `.fixpoint/prompts/<name>.md`. Placeholders are `{{name}}`; every placeholder must
 * be supplied (a typo in a template is an error, not a silently empty section).
 *
 * Layout (docs/prompts.md): a template runs from its most stable part to its least, so that a
 * provider's prompt cache can serve the shared beginning. `{{cache_break}}` (on a line of its own)
 * marks where the part shared with other requests of the same task and cycle ends; it renders as
 * nothing and its position is handed to the backend as a cache breakpoint.
 */
export interface PromptLibrary {
  render(name: string, vars: Record<string, string>): Promise<string>;
  /** The same text as `render`, with the offsets where `{{cache_break}}` markers stood. */
  renderPrompt(name: string, vars: Record<string, string>): Promise<RenderedPrompt>;
}

export interface RenderedPrompt {
  text: string;
  /** Offsets into `text`, ascending, where a prefix shared with other requests ends. */
  cacheBreaks: number[];
}

/** The marker, with the line it stands on, so the rendered text has no empty line in its place. */
const CACHE_BREAK = /^[ \t]*\{\{\s*cache_break\s*\}\}[ \t]*(?:\r?\n|$)/gm;

const PACKAGE_PROMPTS = fileURLToPath(new URL("../../prompts/", import.meta.url));

export function createPromptLibrary(
  projectRoot: string,
  packageDir: string = PACKAGE_PROMPTS,
): PromptLibrary {
  const cache = new Map<string, string>();

  async function load(name: string): Promise<string> {
    const hit = cache.get(name);
    if (hit !== undefined) return hit;
    const candidates = [
      join(projectRoot, ".fixpoint", "prompts", `${name}.md`),
      join(packageDir, `${name}.md`),
    ];
    for (const file of candidates) {
      const text = await readFile(file, "utf8").catch(() => null);
      if (text !== null) {
        cache.set(name, text);
        return text;
      }
    }
    // review-foo falls back to the generic review prompt, so a workflow can name a focus freely.
    if (name.startsWith("review-")) return load("review");
    throw new FixpointError(
      "config",
      `no prompt template \`${name}\` (looked in ${candidates.join(" and ")})`,
    );
  }

  function fill(name: string, template: string, vars: Record<string, string>): string {
    return template.replace(/\{\{\s*([a-z_][a-z0-9_]*)\s*\}\}/gi, (_m, key: string) => {
      const v = vars[key];
      if (v === undefined) {
        throw new FixpointError(
          "config",
          `prompt template \`${name}\` uses {{${key}}}, which fixpoint does not provide`,
        );
      }
      return v;
    });
  }

  async function renderPrompt(name: string, vars: Record<string, string>): Promise<RenderedPrompt> {
    const pieces = (await load(name)).split(CACHE_BREAK);
    const cacheBreaks: number[] = [];
    let text = "";
    for (const [i, piece] of pieces.entries()) {
      if (i > 0) cacheBreaks.push(text.length);
      text += fill(name, piece, vars);
    }
    return { text, cacheBreaks };
  }

  return {
    render: async (name, vars) => (await renderPrompt(name, vars)).text,
    renderPrompt,
  };
}
