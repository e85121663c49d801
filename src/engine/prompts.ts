import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { FixpointError } from "../errors.js";

/**
 * Prompt templates: Markdown files shipped in the package's `prompts/` folder, overridable per
 * project in `.fixpoint/prompts/<name>.md`. Placeholders are `{{name}}`; every placeholder must
 * be supplied (a typo in a template is an error, not a silently empty section).
 */
export interface PromptLibrary {
  render(name: string, vars: Record<string, string>): Promise<string>;
}

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

  return {
    async render(name, vars) {
      const template = await load(name);
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
    },
  };
}
