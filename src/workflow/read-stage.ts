import type { Entry, Node } from "@bgotink/kdl";
import { FINAL_VERDICTS } from "../domain/types.js";
import { didYouMeanSuffix } from "../util/did-you-mean.js";
import { locate } from "../util/kdl-diagnostics.js";
import {
  propertyMap,
  readBoolean,
  readInteger,
  readString,
  rejectUnknown,
  singleStringArg,
} from "../util/kdl-fields.js";
import { parseDuration } from "./duration.js";
import { catchAll, type ReadContext, readCondition } from "./read-condition.js";
import { type Route, STAGE_KINDS, type StageDef, type StageKind } from "./types.js";

/** Defaults (docs/workflows.md): every visit of a stage is bounded even when nobody says so. */
export const DEFAULT_MAX_VISITS = 20;
/** The agent a stage of each kind runs when it names none. */
export const DEFAULT_AGENT: Partial<Record<StageKind, string>> = {
  agent: "implementer",
  review: "reviewer",
  fix: "fixer",
  verify: "reviewer",
};
const DEFAULT_PROMPT: Partial<Record<StageKind, string>> = {
  agent: "implement",
  review: "review",
  fix: "fix",
  verify: "verify",
};

export const COMMON_PROPS = ["kind", "max-visits", "timeout"] as const;
const KIND_PROPS: Readonly<Record<StageKind, readonly string[]>> = {
  agent: ["agent", "prompt"],
  review: ["agent", "prompt"],
  fix: ["agent", "prompt", "next-cycle"],
  gate: ["gates"],
  decision: [],
  exit: ["verdict", "reason"],
  human: ["prompt"],
  github: ["action"],
  verify: ["agent", "prompt", "max-rounds", "clean-rounds", "sources"],
  parallel: [],
};
/** Kinds whose handlers take free-form extra properties (collected into `props`). */
const OPEN_KINDS: ReadonlySet<StageKind> = new Set(["human", "github"]);
const STAGE_ID = /^[A-Za-z_][A-Za-z0-9_-]*$/;

function isStageKind(value: string): value is StageKind {
  return (STAGE_KINDS as readonly string[]).includes(value);
}

/** Reads the stage id; reports a missing or malformed one. */
export function readStageId(node: Node, ctx: ReadContext): string | undefined {
  const id = singleStringArg(node, "the stage id", ctx.sink);
  if (id === undefined) return undefined;
  if (!STAGE_ID.test(id)) {
    ctx.sink.report(
      node,
      `stage id \`${id}\` must start with a letter or _ and use only letters, digits, _ and -`,
    );
    return undefined;
  }
  return id;
}

/** Common to every stage kind, parallel included: `max-visits` and `timeout`. */
export function readLimits(
  props: Map<string, Entry>,
  ctx: ReadContext,
): { maxVisits: number; timeoutMs?: number } {
  const maxVisits = readInteger(props.get("max-visits"), 1, ctx.sink) ?? DEFAULT_MAX_VISITS;
  const timeout = props.get("timeout");
  if (timeout === undefined) return { maxVisits };
  const raw = timeout.getValue();
  const timeoutMs = typeof raw === "string" || typeof raw === "number" ? parseDuration(raw) : undefined;
  if (timeoutMs === undefined) {
    ctx.sink.report(timeout, '`timeout` must be a duration like "30s", "10m", "1h30m" or a number of ms');
  }
  return timeoutMs === undefined ? { maxVisits } : { maxVisits, timeoutMs };
}

/**
 * A `stage "id" kind=… {…}` node. Returns undefined when the stage cannot be built; a stage with
 * an id but a broken kind is recorded in `source.brokenStages` so references to it still resolve.
 */
export function readStage(node: Node, ctx: ReadContext, parentId?: string): StageDef | undefined {
  const id = readStageId(node, ctx);
  const props = propertyMap(node, ctx.sink);
  const kind = readKind(node, props, id, ctx);
  if (id === undefined) return undefined;
  if (kind === undefined) {
    ctx.source.brokenStages.add(id);
    return undefined;
  }
  const where = `${kind} stage \`${id}\``;
  // Open kinds pass their extra properties to the handler instead of rejecting them.
  if (!OPEN_KINDS.has(kind)) rejectUnknown(props, [...COMMON_PROPS, ...KIND_PROPS[kind]], where, ctx.sink);
  const stage: StageDef = {
    id,
    kind,
    loc: locate(node, ctx.sink.file),
    ...readLimits(props, ctx),
    nextCycle: (kind === "fix" && readBoolean(props.get("next-cycle"), ctx.sink)) || false,
    routes: kind === "decision" ? readRoutes(node, id, ctx) : [],
    children: [],
    props: OPEN_KINDS.has(kind) ? extraProps(props, KIND_PROPS[kind]) : {},
    ...readKindSpecific(node, kind, props, where, ctx),
  };
  if (parentId !== undefined) stage.parentId = parentId;
  if (kind !== "decision") rejectChildren(node, where, ctx);
  return stage;
}

function readKind(
  node: Node,
  props: Map<string, Entry>,
  id: string | undefined,
  ctx: ReadContext,
): StageKind | undefined {
  const entry = props.get("kind");
  const kind = readString(entry, ctx.sink);
  if (entry === undefined) {
    ctx.sink.report(
      node,
      `stage \`${id ?? "?"}\` needs kind="…" (one of ${STAGE_KINDS.filter((k) => k !== "parallel").join(", ")})`,
    );
    return undefined;
  }
  if (kind === undefined) return undefined;
  if (kind === "parallel") {
    ctx.sink.report(entry, 'write parallel stages as `parallel "id" { stage … }`');
    return undefined;
  }
  if (!isStageKind(kind)) {
    ctx.sink.report(entry, `unknown stage kind \`${kind}\`${didYouMeanSuffix(kind, STAGE_KINDS)}`);
    return undefined;
  }
  return kind;
}

function readKindSpecific(
  node: Node,
  kind: StageKind,
  props: Map<string, Entry>,
  where: string,
  ctx: ReadContext,
): Partial<StageDef> {
  const allowed = KIND_PROPS[kind];
  const read = (name: string) => (allowed.includes(name) ? readString(props.get(name), ctx.sink) : undefined);
  const extra: Partial<StageDef> = {};
  const agent = read("agent") ?? DEFAULT_AGENT[kind];
  const prompt = read("prompt") ?? DEFAULT_PROMPT[kind];
  if (agent !== undefined) extra.agent = agent;
  if (prompt !== undefined) extra.prompt = prompt;
  const gates = read("gates");
  if (gates !== undefined) extra.gates = splitList(gates);
  const verdict = read("verdict");
  if (verdict !== undefined && (FINAL_VERDICTS as readonly string[]).includes(verdict)) {
    extra.verdict = verdict;
  } else if (verdict !== undefined) {
    const message = `unknown verdict \`${verdict}\`${didYouMeanSuffix(verdict, FINAL_VERDICTS)}`;
    ctx.sink.report(props.get("verdict") ?? node, message);
  }
  const reason = read("reason");
  if (reason !== undefined) extra.reason = reason;
  if (kind === "verify") Object.assign(extra, readVerify(props, read, ctx));
  if (kind === "github") {
    const action = read("action");
    if (!props.has("action")) ctx.sink.report(node, `${where} needs action="…"`);
    else if (action === "") ctx.sink.report(props.get("action") ?? node, "`action` must not be empty");
    else if (action !== undefined) extra.action = action;
  }
  return extra;
}

/** Defaults of a verify stage (docs/workflows.md). */
export const DEFAULT_VERIFY = { maxRounds: 3, cleanRounds: 2, sources: ["pr:", "pr-review:"] } as const;

function readVerify(
  props: Map<string, Entry>,
  read: (name: string) => string | undefined,
  ctx: ReadContext,
): Pick<StageDef, "maxRounds" | "cleanRounds" | "sources"> {
  const maxRounds = readInteger(props.get("max-rounds"), 1, ctx.sink) ?? DEFAULT_VERIFY.maxRounds;
  const cleanRounds = readInteger(props.get("clean-rounds"), 1, ctx.sink) ?? DEFAULT_VERIFY.cleanRounds;
  const sources = read("sources");
  return {
    maxRounds,
    cleanRounds,
    sources: sources === undefined ? [...DEFAULT_VERIFY.sources] : splitList(sources),
  };
}

/** `"test, lint"` → ["test", "lint"]. */
function splitList(text: string): string[] {
  return text
    .split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");
}

function extraProps(props: Map<string, Entry>, known: readonly string[]): StageDef["props"] {
  const out: Record<string, string | number | boolean | null> = {};
  for (const [name, entry] of props) {
    if (!(COMMON_PROPS as readonly string[]).includes(name) && !known.includes(name)) {
      out[name] = entry.getValue();
    }
  }
  return out;
}

function readRoutes(node: Node, id: string, ctx: ReadContext): Route[] {
  const routes: Route[] = [];
  for (const child of node.children?.nodes ?? []) {
    if (child.getName() !== "route") {
      ctx.sink.report(child, `unexpected \`${child.getName()}\` in decision \`${id}\`: only \`route\` nodes`);
      continue;
    }
    const props = propertyMap(child, ctx.sink);
    rejectUnknown(props, ["to", "when"], "`route`", ctx.sink);
    for (const arg of child.getArgumentEntries())
      ctx.sink.report(arg, '`route` takes properties only: `route to="…" when="…"`');
    const toEntry = props.get("to");
    const to = readString(toEntry, ctx.sink);
    if (toEntry === undefined) ctx.sink.report(child, '`route` needs to="stage"');
    if (to === undefined || toEntry === undefined) continue;
    const whenEntry = props.get("when");
    const route: Route = {
      to,
      when: whenEntry === undefined ? catchAll() : readCondition(whenEntry, ctx),
      loc: locate(child, ctx.sink.file),
    };
    ctx.source.targets.set(route, { to: locate(toEntry, ctx.sink.file) });
    routes.push(route);
  }
  return routes;
}

function rejectChildren(node: Node, where: string, ctx: ReadContext): void {
  const first = node.children?.nodes[0];
  if (first !== undefined)
    ctx.sink.report(first, `${where} cannot have children; only decision stages hold routes`);
}
