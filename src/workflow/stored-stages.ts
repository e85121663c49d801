import type { SourceLocation } from "../errors.js";
import type { StageDef } from "./types.js";

/** Where a `loc` was, as a cache entry holds it: line and column (the file is the entry's). */
export type At = [line: number, column: number];

/**
 * A stage as a cache entry holds it: `loc` as line and column, `children` as ids, each route's
 * `loc` likewise. Written as its own JSON text, so an entry is read without building its stages.
 */
export type StoredStage = Omit<StageDef, "loc" | "children" | "routes"> & {
  loc: At;
  children: string[];
  routes: (Omit<StageDef["routes"][number], "loc"> & { loc: At })[];
};

/**
 * A workflow's stages read from a cache entry (checked-cache.ts), each built from its JSON text
 * the first time it is asked for. Resuming a run of a workflow with thousands of stages asks for a
 * handful (the next stage, the few it leads to): reading every stage's object up front was most of
 * what resuming cost more than for a short workflow (docs/benchmarks.md, issue 10). Iterating
 * builds them all, in declaration order, like the Map of a workflow read from its text, which this
 * is (an `instanceof Map` whose own entries are the stages built so far).
 */
export class StoredStages extends Map<string, StageDef> {
  private readonly index = new Map<string, number>();

  /** `ids[i]` is the id of the stage whose JSON is `texts[i]`; `file` is where the workflow is. */
  constructor(
    private readonly ids: readonly string[],
    private readonly texts: readonly string[],
    private readonly file: string,
  ) {
    super();
    if (ids.length !== texts.length) throw new Error("cached workflow: ids and stages differ in number");
    ids.forEach((id, i) => {
      if (typeof id !== "string" || typeof texts[i] !== "string" || this.index.has(id)) {
        throw new Error(`cached workflow: stage ${i} is malformed`);
      }
      this.index.set(id, i);
    });
  }

  override get size(): number {
    return this.ids.length;
  }

  override has(id: string): boolean {
    return this.index.has(id);
  }

  override get(id: string): StageDef | undefined {
    const built = super.get(id);
    if (built !== undefined) return built;
    const i = this.index.get(id);
    return i === undefined ? undefined : this.build(id, i);
  }

  override *entries(): MapIterator<[string, StageDef]> {
    for (const id of this.ids) yield [id, this.must(id)];
  }

  override *keys(): MapIterator<string> {
    yield* this.ids;
  }

  override *values(): MapIterator<StageDef> {
    for (const id of this.ids) yield this.must(id);
  }

  override [Symbol.iterator](): MapIterator<[string, StageDef]> {
    return this.entries();
  }

  override forEach(
    fn: (value: StageDef, key: string, map: Map<string, StageDef>) => void,
    self?: unknown,
  ): void {
    for (const id of this.ids) fn.call(self, this.must(id), id, this);
  }

  override set(): this {
    throw new TypeError("a workflow's stages cannot be changed");
  }

  override delete(): boolean {
    throw new TypeError("a workflow's stages cannot be changed");
  }

  override clear(): void {
    throw new TypeError("a workflow's stages cannot be changed");
  }

  private must(id: string): StageDef {
    const stage = this.get(id);
    if (stage === undefined) throw new Error(`cached workflow: no stage ${id}`);
    return stage;
  }

  private build(id: string, i: number): StageDef {
    const stored = JSON.parse(this.texts[i] as string) as StoredStage;
    const loc = (at: At): SourceLocation => ({ file: this.file, line: at[0], column: at[1] });
    const stage = stored as unknown as StageDef & { loc: SourceLocation; children: readonly StageDef[] };
    stage.loc = loc(stored.loc);
    for (const route of stored.routes) (route as unknown as { loc: SourceLocation }).loc = loc(route.loc);
    // Stored before its children are built: a child's parent is built already when it is asked for.
    super.set(id, stage);
    stage.children = stored.children.map((child) => this.must(child));
    return stage;
  }
}
