import type { StageDef } from "../workflow/types.js";
import type { StageContext } from "./deps.js";

/**
 * Warm starts for parallel reviewers (issue 16, item 2). A provider makes a cached prompt prefix
 * readable only once the response that wrote it has begun, so reviewers of one cycle started at
 * the same moment would each write the shared prefix (and each pay the write price). Instead the
 * first review child starts alone and the others wait until its response has begun (its
 * backend's `responseStarted` progress) or until it finished, whichever comes first. Applies only
 * when that child's backend reports the start of its responses; otherwise nothing waits.
 */
export interface WarmStart {
  /** The context the leading child runs with (its progress is watched). */
  leadContext(child: StageDef, ctx: StageContext): StageContext;
  /** Resolves when `child` may start. */
  ready(child: StageDef): Promise<void>;
  /** The leading child finished (whatever its outcome): nobody waits any more. */
  finished(child: StageDef): void;
}

export function warmStart(children: readonly StageDef[], ctx: StageContext): WarmStart {
  const lead = children.find((c) => c.kind === "review");
  const none: WarmStart = {
    leadContext: (_c, x) => x,
    ready: () => Promise.resolve(),
    finished: () => {},
  };
  if (!lead || children.length < 2 || !reportsStart(lead, ctx)) return none;
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return {
    leadContext(child, x) {
      if (child.id !== lead.id) return x;
      const listener = x.deps.listener;
      return {
        ...x,
        deps: {
          ...x.deps,
          listener: (e) => {
            if (e.type === "agent.progress" && e.stageId === lead.id && e.responseStarted) open();
            listener(e);
          },
        },
      };
    },
    ready: (child) => (child.id === lead.id || child.kind !== "review" ? Promise.resolve() : opened),
    finished(child) {
      if (child.id === lead.id) open();
    },
  };
}

function reportsStart(stage: StageDef, ctx: StageContext): boolean {
  const name = stage.agent ?? "reviewer";
  try {
    return ctx.deps.agents.resolve(ctx.task.agents[name] ?? name).backend.reportsResponseStart === true;
  } catch {
    // An agent that does not resolve fails in its own stage; it has nothing to warm.
    return false;
  }
}
