import { readFileSync } from "node:fs";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ZERO_USAGE } from "../../src/domain/types.js";
import { type Counters, fromRecord, getCount, setCount, toRecord } from "../../src/engine/counters.js";
import { initialRunState, type RunState } from "../../src/engine/state.js";
import {
  type RegistryFacts,
  type StageFacts,
  type StepEffect,
  type StepRules,
  type StepState,
  step,
} from "../../src/engine/step.js";
import { parseWorkflow } from "../../src/workflow/parse.js";
import type { Workflow } from "../../src/workflow/types.js";

const load = (path: string): Workflow =>
  parseWorkflow(readFileSync(new URL(`../../${path}`, import.meta.url), "utf8"), path);
const IMPLEMENT_REVIEW = load("workflows/implement-review.kdl");
const ALWAYS_FIX = load("test/engine/workflows/always-fix.kdl");
const PING_PONG = load("test/engine/workflows/ping-pong.kdl");

function rules(workflow: Workflow, maxCycles = 3, budget: StepRules["budget"] = {}): StepRules {
  return { workflow, maxCycles, budget, prior: { usd: 0, tokens: 0 } };
}

function facts(partial: Partial<StageFacts> = {}): StageFacts {
  return { outcome: "success", usage: ZERO_USAGE, costUsd: 0, ...partial };
}

function registry(partial: Partial<RegistryFacts> = {}): RegistryFacts {
  return {
    blockingOpen: 0,
    open: { all: 0, P0: 0, P1: 0, P2: 0, P3: 0 },
    maxTimesReopened: 0,
    allBlocked: false,
    ...partial,
  };
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function start(r: StepRules, run: RunState = initialRunState(r.workflow.start)): StepState {
  return deepFreeze({ rules: r, run });
}

describe("step, one event at a time", () => {
  it("enters the start stage: a run-stage effect, counters untouched until the stage finishes", () => {
    const s = start(rules(IMPLEMENT_REVIEW));
    const out = step(s, { type: "continue" });
    expect(out.effects).toEqual([{ type: "run-stage", stage: IMPLEMENT_REVIEW.stages.get("implement") }]);
    expect(toRecord(out.state.run.visits)).toEqual({});
    expect(out.state.run).not.toBe(s.run);
  });

  it("records a finished stage with its next stage, and counts it", () => {
    const s = start(rules(IMPLEMENT_REVIEW));
    const out = step(s, {
      type: "stage-finished",
      stageId: "implement",
      facts: facts({ costUsd: 0.5 }),
      registry: registry(),
    });
    expect(out.effects).toEqual([{ type: "record", stageId: "implement" }]);
    expect(out.state.run).toMatchObject({ next: "gates", costUsd: 0.5 });
    expect(toRecord(out.state.run.visits)).toEqual({ implement: 1 });
    expect(toRecord(s.run.visits)).toEqual({});
  });

  it("routes a decision by the registry's facts and records the blocking count of the cycle", () => {
    const base = { ...initialRunState("decide"), gatesPassed: true };
    const open = step(start(rules(IMPLEMENT_REVIEW), base), {
      type: "stage-finished",
      stageId: "decide",
      facts: facts(),
      registry: registry({ blockingOpen: 2 }),
    });
    expect(open.state.run.next).toBe("fix");
    expect(open.state.run.blockingHistory).toEqual([2]);
    const clear = step(start(rules(IMPLEMENT_REVIEW), base), {
      type: "stage-finished",
      stageId: "decide",
      facts: facts(),
      registry: registry(),
    });
    expect(clear.state.run.next).toBe("done");
  });

  it("entering a next-cycle stage increments the cycle and clears the cycle's verdicts", () => {
    const run = { ...initialRunState("fix"), verdicts: { review_code: "CHANGES_REQUESTED" as const } };
    const out = step(start(rules(IMPLEMENT_REVIEW), run), { type: "continue" });
    expect(out.effects[0]?.type).toBe("run-stage");
    expect(out.state.run).toMatchObject({ cycle: 1, verdicts: {}, failedReviews: [] });
  });

  it("never starts fix cycle max-cycles + 1: the run ends as at an exit", () => {
    const run = { ...initialRunState("fix"), cycle: 2 };
    const out = step(start(rules(IMPLEMENT_REVIEW, 2), run), { type: "continue" });
    expect(out.effects).toEqual([
      { type: "finish", end: { kind: "exit", stageId: null }, recordStageId: null },
    ]);
  });

  it("stops the run when the implementer fails for good, recording that stage in the finish", () => {
    const out = step(start(rules(IMPLEMENT_REVIEW)), {
      type: "stage-finished",
      stageId: "implement",
      facts: facts({ outcome: "fail", failureClass: "timeout", failureReason: "timed out after 1m" }),
      registry: registry(),
    });
    expect(out.effects).toEqual([
      {
        type: "finish",
        end: { kind: "stopped", reason: "implement failed: timed out after 1m", stageId: "implement" },
        recordStageId: "implement",
      },
    ]);
    expect(out.state.run.next).toBeNull();
  });

  it("ends a run whose budget is spent before any working stage", () => {
    const run = { ...initialRunState("gates"), costUsd: 2 };
    const out = step(start(rules(IMPLEMENT_REVIEW, 3, { usd: 1 }), run), { type: "continue" });
    expect(out.effects).toEqual([
      { type: "finish", end: { kind: "budget", stageId: "gates" }, recordStageId: null },
    ]);
  });

  it("finishes a run whose checkpoint names no next stage and holds no verdict, without running a stage", () => {
    const run = { ...initialRunState("implement"), next: null };
    const out = step(start(rules(IMPLEMENT_REVIEW), run), { type: "continue" });
    expect(out.effects).toEqual([
      { type: "finish", end: { kind: "exit", stageId: null }, recordStageId: null },
    ]);
  });

  it("takes no step once a run is finished", () => {
    const run = { ...initialRunState("implement"), final: { verdict: "APPROVED" as const, reason: "ok" } };
    const s = start(rules(IMPLEMENT_REVIEW), run);
    expect(step(s, { type: "continue" }).effects).toEqual([]);
    expect(
      step(s, { type: "stage-finished", stageId: "implement", facts: facts(), registry: registry() }).effects,
    ).toEqual([]);
  });
});

// ---- properties: random outcome sequences through real workflows

interface Draw {
  outcome: StageFacts["outcome"];
  failureClass: StageFacts["failureClass"];
  verdict: "APPROVED" | "APPROVED_WITH_FOLLOWUPS" | "CHANGES_REQUESTED" | "NEEDS_DISCUSSION";
  failedReview: boolean;
  gatesPassed: boolean;
  blockingOpen: number;
  maxTimesReopened: number;
  allBlocked: boolean;
  costUsd: number;
}

const draw: fc.Arbitrary<Draw> = fc.record({
  outcome: fc.constantFrom("success", "success", "success", "fail", "partial_success"),
  failureClass: fc.constantFrom(undefined, "timeout", "exit_nonzero", "unparsable"),
  verdict: fc.constantFrom("APPROVED", "APPROVED_WITH_FOLLOWUPS", "CHANGES_REQUESTED", "NEEDS_DISCUSSION"),
  failedReview: fc.boolean(),
  gatesPassed: fc.boolean(),
  blockingOpen: fc.nat(4),
  maxTimesReopened: fc.nat(2),
  allBlocked: fc.boolean(),
  costUsd: fc.double({ min: 0, max: 0.5, noNaN: true }),
});

interface Trace {
  effects: StepEffect[];
  finishes: number;
  fixEntries: number;
  maxRelCycle: number;
  unrecorded: string[];
  terminated: boolean;
}

/** Drives the step like the interpreter does, answering every stage from `draws` in turn. */
function drive(r: StepRules, draws: Draw[], limit = 2000): Trace {
  const t: Trace = {
    effects: [],
    finishes: 0,
    fixEntries: 0,
    maxRelCycle: 0,
    unrecorded: [],
    terminated: false,
  };
  let state = start(r);
  let out = step(state, { type: "continue" });
  for (let i = 0; i < limit; i++) {
    expect(out.effects.length).toBeLessThanOrEqual(1);
    const effect = out.effects[0];
    if (effect === undefined) break;
    t.effects.push(effect);
    const run = deepFreeze(out.state.run);
    t.maxRelCycle = Math.max(t.maxRelCycle, run.cycle - run.cycleBase);
    if (effect.type === "finish") {
      t.finishes++;
      // The interpreter stores the verdict; from then on the step must do nothing.
      const done = start(r, { ...run, final: { verdict: "APPROVED", reason: "done" } });
      expect(step(done, { type: "continue" }).effects).toEqual([]);
      t.terminated = true;
      break;
    }
    if (effect.type === "record") {
      state = out.state;
      out = step(state, { type: "continue" });
      continue;
    }
    const stage = effect.stage;
    if (stage.nextCycle) t.fixEntries++;
    const d = draws[i % draws.length] as Draw;
    const f = facts({
      outcome: d.outcome,
      failureClass: d.outcome === "fail" ? d.failureClass : undefined,
      failureReason: d.outcome === "fail" ? "it broke" : undefined,
      costUsd: d.costUsd,
      ...(stage.kind === "review"
        ? { review: { verdict: d.verdict, failed: d.failedReview, head: null } }
        : {}),
      ...(stage.kind === "gate" ? { gatesPassed: d.gatesPassed } : {}),
    });
    const reg = registry({
      blockingOpen: d.blockingOpen,
      maxTimesReopened: d.maxTimesReopened,
      allBlocked: d.allBlocked && d.blockingOpen > 0,
    });
    out = step(out.state, { type: "stage-finished", stageId: stage.id, facts: f, registry: reg });
    // Every finished stage is recorded exactly once — alone or in the finish — so what it
    // found reaches the store with it: no finding is dropped between stage and record.
    const answer = out.effects;
    const recorded =
      answer.length === 1 &&
      answer[0] &&
      (answer[0].type === "record"
        ? answer[0].stageId
        : answer[0].type === "finish"
          ? answer[0].recordStageId
          : null);
    if (recorded !== stage.id) t.unrecorded.push(stage.id);
  }
  return t;
}

const workflows = fc.constantFrom(IMPLEMENT_REVIEW, ALWAYS_FIX, PING_PONG);

describe("step, under any sequence of stage outcomes", () => {
  it("ends every run exactly once, never loops past max-cycles, records every finished stage", () => {
    fc.assert(
      fc.property(
        workflows,
        fc.integer({ min: 1, max: 5 }),
        fc.option(fc.double({ min: 0.1, max: 5, noNaN: true }), { nil: undefined }),
        fc.array(draw, { minLength: 1, maxLength: 60 }),
        (wf, maxCycles, usd, draws) => {
          const t = drive(rules(wf, maxCycles, usd === undefined ? {} : { usd }), draws);
          expect(t.terminated).toBe(true);
          expect(t.finishes).toBe(1);
          expect(t.fixEntries).toBeLessThanOrEqual(maxCycles);
          expect(t.maxRelCycle).toBeLessThanOrEqual(maxCycles);
          expect(t.unrecorded).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("is deterministic: the same outcomes give the same effects (resume and replay rely on it)", () => {
    fc.assert(
      fc.property(
        workflows,
        fc.integer({ min: 1, max: 4 }),
        fc.array(draw, { minLength: 1, maxLength: 30 }),
        (wf, m, draws) => {
          expect(drive(rules(wf, m), draws).effects).toEqual(drive(rules(wf, m), draws).effects);
        },
      ),
      { numRuns: 100 },
    );
  });
});

describe("the counters table", () => {
  it("reads back what was set, like a plain map, and never changes the table it was given", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.string({ maxLength: 6 }), fc.nat(9)), { maxLength: 200 }), (ops) => {
        let table: Counters<number> = {};
        const model = new Map<string, number>();
        for (const [id, n] of ops) {
          const before = deepFreeze(table);
          table = setCount(before, id, n);
          model.set(id, n);
        }
        expect(toRecord(table)).toEqual(Object.fromEntries(model));
        for (const [id, n] of model) expect(getCount(table, id)).toBe(n);
        expect(toRecord(fromRecord(toRecord(table)))).toEqual(toRecord(table));
      }),
    );
  });

  it("over a base (a loaded snapshot) reads the base until an id is set again, and never changes the base", () => {
    const id = fc.stringMatching(/^[a-z0-9-]{1,6}$/);
    fc.assert(
      fc.property(
        fc.array(fc.tuple(id, fc.nat(9)), { maxLength: 100 }),
        fc.array(fc.tuple(id, fc.nat(9)), { maxLength: 100 }),
        (loaded, ops) => {
          const base = new Map(loaded);
          const frozen = [...base];
          let table: Counters<number> = { base };
          const model = new Map(base);
          for (const [key, n] of ops) {
            table = setCount(deepFreeze(table), key, n);
            model.set(key, n);
          }
          expect(toRecord(table)).toEqual(Object.fromEntries(model));
          for (const [key, n] of model) expect(getCount(table, key)).toBe(n);
          expect(getCount(table, "not-there-7")).toBeUndefined();
          expect([...base]).toEqual(frozen);
        },
      ),
    );
  });
});
