import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeTempDir } from "../../test/helpers/temp.js";
import { DiagnosticsError } from "../errors.js";
import { agentsOf } from "./agents-of.js";
import { checkWorkflowCached, workflowCacheDir } from "./checked-cache.js";
import { loadWorkflow, projectWorkflowsDir } from "./loader.js";
import type { Workflow } from "./types.js";
import { checkWorkflowText } from "./validate.js";

const tempDir = (): string => makeTempDir("workflow-cache-");

/** Everything a workflow holds, locations and property order included, as text. */
function plain(workflow: Workflow | undefined): string {
  return JSON.stringify(workflow, (_k, v: unknown) =>
    v instanceof Map
      ? [...v.entries()].map(([id, s]: [string, { children: { id: string }[] }]) => [id, s])
      : v,
  );
}

const entries = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir) : []);

/** The repository's workflows: the built-ins and the engine tests' ones (parallels, routes, conditions). */
function repositoryWorkflows(): { file: string; text: string }[] {
  const dirs = ["../../workflows/", "../../test/engine/workflows/"].map((rel) =>
    fileURLToPath(new URL(rel, import.meta.url)),
  );
  return dirs.flatMap((dir) =>
    readdirSync(dir)
      .filter((n) => n.endsWith(".kdl"))
      .map((n) => ({ file: join(dir, n), text: readFileSync(join(dir, n), "utf8") })),
  );
}

const CONDITIONS = [
  "cycle() < 3",
  "blocking_open() == 0",
  'outcome("s0") == "approved"',
  'open("P1") > 2 && !no_progress()',
  "gates_passed() || max_cycles() >= 4",
];

/** KDL text of a workflow: a chain, maybe a parallel, a decision, blank lines and comments that move locations. */
const workflowText = fc
  .record({
    stages: fc.array(
      fc.record({
        kind: fc.constantFrom("agent", "review", "fix", "gate"),
        agent: fc.option(fc.constantFrom("implementer", "reviewer", 'fix"er', "relecteur-é"), {
          nil: undefined,
        }),
        maxVisits: fc.option(fc.integer({ min: 1, max: 50 }), { nil: undefined }),
        timeout: fc.option(fc.constantFrom("30s", "5m", "1h"), { nil: undefined }),
        gap: fc.constantFrom("", "\n", "\n    // a note\n", "\n\n"),
        indent: fc.constantFrom("    ", "  ", "\t"),
      }),
      { minLength: 1, maxLength: 12 },
    ),
    parallel: fc.boolean(),
    routes: fc.array(fc.constantFrom(...CONDITIONS), { maxLength: 3 }),
    description: fc.option(fc.string(), { nil: undefined }),
    broken: fc.constantFrom(false, false, false, true),
  })
  .map(({ stages, parallel, routes, description, broken }) => {
    const q = (s: string) => JSON.stringify(s);
    const lines = ['workflow "generated" {'];
    if (description !== undefined) lines.push(`    description ${q(description)}`);
    lines.push('    start "s0"');
    stages.forEach((s, i) => {
      const props = [
        `kind="${s.kind === "fix" && i === 0 ? "agent" : s.kind}"`,
        ...(s.agent !== undefined && s.kind !== "gate" ? [`agent=${q(s.agent)}`] : []),
        ...(s.maxVisits !== undefined ? [`max-visits=${s.maxVisits}`] : []),
        ...(s.timeout !== undefined ? [`timeout="${s.timeout}"`] : []),
      ];
      lines.push(`${s.gap}${s.indent}stage "s${i}" ${props.join(" ")}`);
    });
    if (parallel) {
      lines.push(
        '    parallel "p" {',
        '        stage "p_a" kind="review"',
        '        stage "p_b" kind="review"',
        "    }",
      );
    }
    lines.push('    stage "d" kind="decision" {');
    for (const when of routes) lines.push(`        route to="s0" when=${q(when)}`);
    lines.push('        route to="done"', "    }", '    stage "done" kind="exit"');
    const chain = [...stages.map((_, i) => `s${i}`), ...(parallel ? ["p"] : []), "d"];
    for (let i = 0; i + 1 < chain.length; i++) {
      lines.push(`    transition from="${chain[i]}" to="${broken && i === 0 ? "nowhere" : chain[i + 1]}"`);
    }
    lines.push("}", "");
    return lines.join("\n");
  });

describe("checked workflows remembered on disk", () => {
  it("a workflow read from its entry is the workflow read from its text, locations included", () => {
    for (const { file, text } of repositoryWorkflows()) {
      const dir = tempDir();
      const fresh = checkWorkflowText(text, file);
      expect(fresh.diagnostics, file).toEqual([]);
      const first = checkWorkflowCached(text, file, dir);
      expect(entries(dir), file).toHaveLength(1);
      const second = checkWorkflowCached(text, file, dir);
      expect(plain(first.workflow), file).toBe(plain(fresh.workflow));
      expect(plain(second.workflow), file).toBe(plain(fresh.workflow));
      expect(second.diagnostics).toEqual([]);
    }
  });

  it("holds for generated workflows, and a broken one is never remembered", () => {
    let valid = 0;
    let broken = 0;
    fc.assert(
      fc.property(workflowText, (text) => {
        const dir = tempDir();
        const file = join(dir, "generated.kdl");
        const fresh = checkWorkflowText(text, file);
        if (fresh.workflow === undefined) broken++;
        else valid++;
        const first = checkWorkflowCached(text, file, dir);
        const second = checkWorkflowCached(text, file, dir);
        expect(first.diagnostics).toEqual(fresh.diagnostics);
        expect(second.diagnostics).toEqual(fresh.diagnostics);
        expect(plain(second.workflow)).toBe(plain(fresh.workflow));
        if (fresh.workflow && second.workflow)
          expect(agentsOf(second.workflow)).toEqual(agentsOf(fresh.workflow));
        expect(entries(dir).filter((n) => n.endsWith(".json"))).toHaveLength(
          fresh.workflow === undefined ? 0 : 1,
        );
        rmSync(dir, { recursive: true, force: true });
      }),
      { numRuns: 150 },
    );
    // The generator makes both kinds, so both halves of the property were tried.
    expect(valid).toBeGreaterThan(60);
    expect(broken).toBeGreaterThan(10);
  });

  it("builds a stage from the entry when it is asked for, the same stage the text gives", () => {
    const dir = tempDir();
    const file = join(dir, "w.kdl");
    const text = [
      'workflow "w" {',
      '    start "work"',
      '    stage "work" kind="agent" agent="builder"',
      '    parallel "reviews" {',
      '        stage "r1" kind="review"',
      '        stage "r2" kind="review" agent="auditor"',
      "    }",
      '    stage "route" kind="decision" {',
      '        route to="work" when="blocking_open() > 0"',
      '        route to="done"',
      "    }",
      '    stage "done" kind="exit"',
      '    transition from="work" to="reviews"',
      '    transition from="reviews" to="route"',
      "}",
      "",
    ].join("\n");
    const fresh = checkWorkflowText(text, file).workflow as Workflow;
    checkWorkflowCached(text, file, dir);
    const cached = checkWorkflowCached(text, file, dir).workflow as Workflow;
    expect(agentsOf(cached)).toEqual(["builder", "reviewer", "auditor"]);
    // One stage asked for: built alone, equal to the text's, with its location.
    expect(JSON.stringify(cached.stages.get("route"))).toBe(JSON.stringify(fresh.stages.get("route")));
    expect(cached.stages.get("route")?.loc).toEqual({ file, line: 8, column: 5 });
    expect(cached.stages.get("nowhere")).toBeUndefined();
    expect(cached.stages.has("r2")).toBe(true);
    expect(cached.stages.size).toBe(fresh.stages.size);
    // A parallel's children are the map's own stages, whichever is asked for first.
    const reviews = cached.stages.get("reviews");
    expect(reviews?.children.map((c) => c.id)).toEqual(["r1", "r2"]);
    expect(reviews?.children[1]).toBe(cached.stages.get("r2"));
    expect(cached.stages.get("r1")?.parentId).toBe("reviews");
    // Iterated in declaration order, as the text's map is.
    expect([...cached.stages.keys()]).toEqual([...fresh.stages.keys()]);
    expect([...cached.stages.values()].map((s) => s.id)).toEqual([...fresh.stages.keys()]);
    const seen: string[] = [];
    cached.stages.forEach((s, id) => {
      seen.push(`${id}:${s.kind}`);
    });
    expect(seen).toEqual([...fresh.stages.values()].map((s) => `${s.id}:${s.kind}`));
    // Read-only, like the type says.
    const asMap = cached.stages as Map<string, unknown>;
    expect(() => asMap.set("x", {})).toThrow(/cannot be changed/);
    expect(() => asMap.delete("work")).toThrow(/cannot be changed/);
    expect(cached.stages.size).toBe(fresh.stages.size);
  });

  it("answers from the entry while the text and the code are those it was made from", () => {
    const dir = tempDir();
    const file = join(dir, "w.kdl");
    const text =
      'workflow "w" {\n    description "original"\n    start "a"\n    stage "a" kind="agent"\n    stage "done" kind="exit"\n    transition from="a" to="done"\n}\n';
    checkWorkflowCached(text, file, dir);
    const [name] = entries(dir);
    const path = join(dir, name as string);
    const entry = JSON.parse(readFileSync(path, "utf8"));
    // Only an entry that is used can make the answer say this.
    entry.workflow.description = "from the entry";
    writeFileSync(path, JSON.stringify(entry));
    expect(checkWorkflowCached(text, file, dir).workflow?.description).toBe("from the entry");

    // Another build of fixpoint made it: read afresh, and the entry replaced.
    writeFileSync(path, JSON.stringify({ ...entry, code: `${entry.code}:other` }));
    expect(checkWorkflowCached(text, file, dir).workflow?.description).toBe("original");
    expect(JSON.parse(readFileSync(path, "utf8")).code).toBe(entry.code);

    // The text changed: read afresh.
    writeFileSync(path, JSON.stringify(entry));
    const edited = text.replace('"original"', '"edited"');
    expect(checkWorkflowCached(edited, file, dir).workflow?.description).toBe("edited");

    // An entry that is not JSON, or not a workflow, is read past.
    for (const junk of ["{", "null", '{"format":1}', JSON.stringify({ ...entry, workflow: { stages: 5 } })]) {
      writeFileSync(path, junk);
      expect(checkWorkflowCached(text, file, dir).workflow?.description, junk).toBe("original");
    }
  });

  it("a cache folder that cannot be written is no error", () => {
    const dir = tempDir();
    const blocked = join(dir, "not-a-folder");
    writeFileSync(blocked, "");
    const text = readFileSync(fileURLToPath(new URL("../../workflows/quick.kdl", import.meta.url)), "utf8");
    const got = checkWorkflowCached(text, join(dir, "quick.kdl"), join(blocked, "workflows"));
    expect(plain(got.workflow)).toBe(plain(checkWorkflowText(text, join(dir, "quick.kdl")).workflow));
    if (process.getuid?.() !== 0) {
      const ro = join(dir, "ro");
      checkWorkflowCached(text, join(dir, "quick.kdl"), ro);
      chmodSync(ro, 0o500);
      expect(
        checkWorkflowCached(text.replace("quick", "quick2"), join(dir, "quick.kdl"), ro).workflow?.name,
      ).toBe("quick2");
      chmodSync(ro, 0o700);
    }
  });
});

describe("the loader's cache", () => {
  const chain = (name: string, n: number) =>
    `workflow "${name}" {\n    start "s0"\n${Array.from({ length: n }, (_, i) => `    stage "s${i}" kind="agent"\n`).join("")}    stage "done" kind="exit"\n${Array.from({ length: n }, (_, i) => `    transition from="s${i}" to="${i + 1 < n ? `s${i + 1}` : "done"}"\n`).join("")}}\n`;

  it("is kept in .fixpoint/cache/workflows of a project, and an edited workflow is read afresh", async () => {
    const root = tempDir();
    await mkdir(projectWorkflowsDir(root), { recursive: true });
    const file = join(projectWorkflowsDir(root), "long.kdl");
    await writeFile(file, chain("long", 3));
    expect((await loadWorkflow("long", root)).stages.size).toBe(4);
    expect(entries(workflowCacheDir(root))).toContain(
      entries(workflowCacheDir(root)).find((n) => n.startsWith("long.kdl-")),
    );
    await writeFile(file, chain("long", 5));
    const edited = await loadWorkflow("long", root);
    expect(edited.stages.size).toBe(6);
    expect(edited.stages.get("s4")?.loc).toEqual({ file, line: 7, column: 5 });
    // The built-ins are remembered there too: one entry per file.
    expect(entries(workflowCacheDir(root)).filter((n) => n.startsWith("long.kdl-"))).toHaveLength(1);
    expect(entries(workflowCacheDir(root)).some((n) => n.startsWith("implement-review.kdl-"))).toBe(true);
  });

  it("a broken workflow still names its line and column, from the cache's project too", async () => {
    const root = tempDir();
    await mkdir(projectWorkflowsDir(root), { recursive: true });
    const file = join(projectWorkflowsDir(root), "long.kdl");
    await writeFile(file, chain("long", 3));
    await loadWorkflow("long", root);
    await writeFile(file, chain("long", 3).replace('to="s2"', 'to="nowhere"'));
    const err = await loadWorkflow("long", root).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DiagnosticsError);
    expect(String((err as Error).message)).toMatch(/long\.kdl:\d+:\d+: .*nowhere/);
  });

  it("writes nothing into a folder that is not a fixpoint project", async () => {
    const root = tempDir();
    expect((await loadWorkflow("implement-review", root)).name).toBe("implement-review");
    expect(existsSync(join(root, ".fixpoint"))).toBe(false);
  });
});
