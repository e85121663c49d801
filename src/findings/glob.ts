/**
 * Path globs for learning scopes, matched against repository-relative paths with `/`:
 * `*` is any run of characters within one path segment, `?` one character other than `/`,
 * `**` any number of whole segments (none included). A pattern naming a folder (`src/api` or
 * `src/api/`) also covers everything under it. Every other character is literal.
 */
const cache = new Map<string, RegExp>();

export function globToRegExp(glob: string): RegExp {
  const hit = cache.get(glob);
  if (hit) return hit;
  const g = glob
    .replace(/\\/g, "/")
    .replace(/^(\.\/)+/, "")
    .replace(/\/+$/, "");
  let re = "";
  for (let i = 0; i < g.length; i++) {
    const c = g[i] as string;
    if (c === "*" && g[i + 1] === "*") {
      const atStart = i === 0 || g[i - 1] === "/";
      const atEnd = i + 2 === g.length || g[i + 2] === "/";
      if (atStart && atEnd) {
        // `**/` (or a final `**`): zero or more whole segments.
        re += i + 2 === g.length ? ".*" : "(?:[^/]*/)*";
        i += i + 2 === g.length ? 1 : 2;
        continue;
      }
      re += "[^/]*";
      i++;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  const out = new RegExp(`^${re}(?:/.*)?$`, "s");
  if (cache.size > 1000) cache.clear();
  cache.set(glob, out);
  return out;
}

/** Whether `path` (repository-relative) is covered by `glob`. */
export function globMatches(glob: string, path: string): boolean {
  const p = path.replace(/\\/g, "/").replace(/^(\.\/)+/, "");
  return globToRegExp(glob).test(p);
}
