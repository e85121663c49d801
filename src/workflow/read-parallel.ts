import type { Node } from "@bgotink/kdl";
import { locate } from "../util/kdl-diagnostics.js";
import { propertyMap, readInteger, rejectUnknown } from "../util/kdl-fields.js";
import type { ReadContext } from "./read-condition.js";
import { readLimits, readStage, readStageId } from "./read-stage.js";
import type { StageDef, StageKind } from "./types.js";

/** Kinds that may run inside a parallel block: work that ends in an outcome, not control flow. */
const CHILD_KINDS: ReadonlySet<StageKind> = new Set(["agent", "review", "fix", "gate", "human", "github"]);

/**
 * `parallel "id" max=3 { stage … }`. Children run concurrently and are merged in declaration
 * order; they carry `parentId` and never have transitions of their own (the parent does).
 * Returns undefined when the block has no usable id.
 */
export function readParallel(node: Node, ctx: ReadContext): StageDef | undefined {
  const id = readStageId(node, ctx);
  const props = propertyMap(node, ctx.sink);
  rejectUnknown(props, ["max", "max-visits", "timeout"], `parallel \`${id ?? "?"}\``, ctx.sink);
  const max = readInteger(props.get("max"), 1, ctx.sink);
  const limits = readLimits(props, ctx);
  if (id === undefined) return undefined;
  const children: StageDef[] = [];
  for (const child of node.children?.nodes ?? []) {
    const name = child.getName();
    if (name === "parallel") {
      ctx.sink.report(child, `parallel \`${id}\` cannot contain another parallel`);
      continue;
    }
    if (name !== "stage") {
      ctx.sink.report(child, `unexpected \`${name}\` inside parallel \`${id}\`: only \`stage\` nodes`);
      continue;
    }
    const stage = readStage(child, ctx, id);
    if (stage === undefined) continue;
    if (!CHILD_KINDS.has(stage.kind)) {
      ctx.sink.report(child, `a ${stage.kind} stage cannot run inside parallel \`${id}\``);
      ctx.source.brokenStages.add(stage.id);
      continue;
    }
    children.push(stage);
  }
  if ((node.children?.nodes.length ?? 0) === 0) ctx.sink.report(node, `parallel \`${id}\` has no stages`);
  return {
    id,
    kind: "parallel",
    loc: locate(node, ctx.sink.file),
    ...limits,
    nextCycle: false,
    routes: [],
    children,
    max: max ?? Math.max(1, children.length),
    props: {},
  };
}
