/**
 * Path globs for learning scopes, matched against repository-relative paths with `/`:
 * `*` is any run of characters within one path segment, `?` one character other than `/`,
 * `**` any number of whole segments (none included). A pattern naming a folder (`src/api` or
 * `src/api/`) also covers everything under it. Every other character is literal.
 */
const cache = new Map<string, RegExp>();
/**
 * Compiled globs kept: more than a repository's learnings have distinct scopes, so each reviewer
 * of a cycle does not compile them again (at 1,000 kept, 3,333 wildcard scopes were compiled anew
 * for every reviewer).
 */
const GLOB_CACHE_MAX = 50_000;

/** The glob as it is matched: `/` separators, no leading `./`, no trailing `/`. */
function normalizeGlob(glob: string): string {
  // Most globs need no change (see normalizePath).
  if (!glob.includes("\\") && !glob.startsWith("./") && !glob.endsWith("/")) return glob;
  return glob
    .replace(/\\/g, "/")
    .replace(/^(\.\/)+/, "")
    .replace(/\/+$/, "");
}

/** A path as globs are matched against it: `/` separators, no leading `./`. */
function normalizePath(path: string): string {
  // Most paths need neither change; a regex replace of each costs more than the lookups it serves.
  if (!path.includes("\\") && !path.startsWith("./")) return path;
  return path.replace(/\\/g, "/").replace(/^(\.\/)+/, "");
}

export function globToRegExp(glob: string): RegExp {
  const hit = cache.get(glob);
  if (hit) return hit;
  const g = normalizeGlob(glob);
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
  if (cache.size >= GLOB_CACHE_MAX) cache.clear();
  cache.set(glob, out);
  return out;
}

/** Whether `path` (repository-relative) is covered by `glob`. */
export function globMatches(glob: string, path: string): boolean {
  return globToRegExp(glob).test(normalizePath(path));
}

/**
 * Whether a glob covers any of `paths`, asked of many globs: what `paths.some((p) =>
 * globMatches(glob, p))` answers, without reading every path for every glob. A glob without `*`
 * or `?` (a file or a folder, as most learnings' scopes are) is a set lookup and a binary search
 * of the sorted paths for one under it. A wildcard glob is tried, once per distinct glob, against
 * the paths that start with what it says before its first wildcard (a range of the sorted paths),
 * as any path it matches must.
 */
export function coverage(paths: Iterable<string>): (glob: string) => boolean {
  const exact = new Set<string>();
  for (const path of paths) exact.add(normalizePath(path));
  const sorted = [...exact].sort();
  /** Whether a path starts with `prefix`: the first path not below it does, if any does. */
  const anyUnder = (prefix: string): boolean =>
    sorted[firstAtLeast(sorted, prefix)]?.startsWith(prefix) === true;
  const answered = new Map<string, boolean>();
  return (glob) => {
    const g = normalizeGlob(glob);
    const wild = g.search(/[*?]/);
    if (wild === -1) return exact.has(g) || anyUnder(`${g}/`);
    const known = answered.get(glob);
    if (known !== undefined) return known;
    const re = globToRegExp(glob);
    const prefix = g.slice(0, wild);
    let covers = false;
    for (let i = firstAtLeast(sorted, prefix); i < sorted.length && !covers; i++) {
      const p = sorted[i] as string;
      if (!p.startsWith(prefix)) break;
      covers = re.test(p);
    }
    answered.set(glob, covers);
    return covers;
  };
}

/** The index of the first of the sorted `items` not below `key` (their length when none). */
function firstAtLeast(items: readonly string[], key: string): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((items[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
