import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { coverage, globMatches } from "./glob.js";

const segment = fc.stringMatching(/^[a-z0-9_.-]{1,8}$/).filter((s) => s !== "." && s !== "..");
const path = fc.array(segment, { minLength: 1, maxLength: 5 }).map((s) => s.join("/"));

describe("scope globs", () => {
  it.each([
    ["src/**", "src/a.ts", true],
    ["src/**", "src/deep/er/a.ts", true],
    ["src/**", "srcx/a.ts", false],
    ["src/**/*.ts", "src/a.ts", true],
    ["src/**/*.ts", "src/x/y/a.ts", true],
    ["src/**/*.ts", "src/x/a.js", false],
    ["src/*.ts", "src/x/a.ts", false],
    ["*.md", "README.md", true],
    ["*.md", "docs/a.md", false],
    ["src/api", "src/api/routes.ts", true],
    ["src/api/", "src/api/routes.ts", true],
    ["src/api", "src/apix/routes.ts", false],
    ["src/a?.ts", "src/ab.ts", true],
    ["src/a?.ts", "src/a/.ts", false],
    ["lib/(x).ts", "lib/(x).ts", true],
    ["lib/[ab].ts", "lib/a.ts", false],
    ["**/db.ts", "db.ts", true],
    ["**/db.ts", "a/b/db.ts", true],
  ])("%s covers %s: %s", (glob, p, expected) => {
    expect(globMatches(glob, p)).toBe(expected);
  });

  it("every path is covered by itself, by its folders and by **", () => {
    fc.assert(
      fc.property(path, (p) => {
        const segs = p.split("/");
        expect(globMatches(p, p)).toBe(true);
        expect(globMatches("**", p)).toBe(true);
        for (let i = 1; i < segs.length; i++) expect(globMatches(segs.slice(0, i).join("/"), p)).toBe(true);
      }),
    );
  });

  it("a literal glob never covers a path outside it, and * never crosses a /", () => {
    fc.assert(
      fc.property(path, path, (a, b) => {
        const covers = globMatches(a, b);
        expect(covers).toBe(b === a || b.startsWith(`${a}/`));
        const parts = b.split("/");
        const starred = parts.map(() => "*").join("/");
        expect(globMatches(starred, b)).toBe(true);
        if (parts.length > 1) expect(globMatches("*", b)).toBe(true); // the folder rule: `*` names the first folder
        expect(globMatches(`${starred}/*`, b)).toBe(false);
      }),
    );
  });
  it("coverage answers what globMatches over every path answers, for any glob", () => {
    const spelled = fc.tuple(path, fc.constantFrom("", "./", "././")).map(([p, pre]) => pre + p);
    const messy = spelled.map((p) => p.replace(/\//g, "\\"));
    const foldersOf = (paths: string[]) =>
      paths.flatMap((p) => p.split(/[\\/]/).map((_, i, segs) => segs.slice(0, i + 1).join("/")));
    const globOf = (paths: string[]) =>
      fc.oneof(
        fc.constantFrom(...(paths.length > 0 ? paths : ["x"])),
        fc.constantFrom(...(paths.length > 0 ? foldersOf(paths) : ["x"])),
        path,
        fc.constantFrom("**", "*.ts", "src/**", "**/a", "a?", "a/*", "a/b/", "./a", "a\\b", "(x)", ""),
        fc.tuple(path, fc.constantFrom("/", "/**", "/*", "?", "*", "")).map(([p, end]) => p + end),
      );
    fc.assert(
      fc.property(
        fc
          .array(fc.oneof(spelled, messy), { maxLength: 8 })
          .chain((paths) =>
            fc.tuple(fc.constant(paths), fc.array(globOf(paths), { minLength: 1, maxLength: 6 })),
          ),
        ([paths, globs]) => {
          const covered = coverage(paths);
          for (const g of globs) expect(covered(g)).toBe(paths.some((p) => globMatches(g, p)));
        },
      ),
      { numRuns: 1000 },
    );
  });
});
