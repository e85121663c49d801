import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { StageCommit, Store, StoreOps } from "../../src/domain/store.js";
import { byStage, garbageReply, reviewReply } from "../helpers/agent-replies.js";
import { type EngineHarness, harnessPerTest } from "../helpers/engine-harness.js";

const harness = harnessPerTest();

/**
 * The store and git as the engine used them, in order: every commit of a stage (with the replies
 * it set), every reply set in a transaction of its own, and every git commit that made one.
 */
function recordWrites(h: EngineHarness): string[] {
  const log: string[] = [];
  const turnKey = (key: string) => key.split(":").at(-1);
  const watchOps = <T extends StoreOps>(ops: T, where: string): T =>
    new Proxy(ops, {
      get(o, prop, receiver) {
        const value = Reflect.get(o, prop, receiver);
        if (prop === "setMarker" && typeof value === "function") {
          return (key: string, ...rest: unknown[]) => {
            if (key.startsWith("turns:")) log.push(`${where} reply ${turnKey(key)}`);
            return Reflect.apply(value, o, [key, ...rest]);
          };
        }
        if (prop === "commitStage" && typeof value === "function") {
          return (c: StageCommit) => {
            const replies = (c.markers ?? [])
              .filter((m) => m.key.startsWith("turns:"))
              .map((m) => ` + reply ${turnKey(m.key)}`)
              .join("");
            const transcripts = (c.artifacts ?? []).filter((a) => a.kind === "transcript").length;
            log.push(
              `${where} stage ${c.stage?.stageId ?? "-"}${replies}${" + transcript".repeat(transcripts)}`,
            );
            return Reflect.apply(value, o, [c]);
          };
        }
        return typeof value === "function" ? value.bind(o) : value;
      },
    });
  const store = h.deps.store;
  h.deps.store = new Proxy(watchOps(store, "commit"), {
    get(o, prop, receiver) {
      if (prop === "transaction") {
        return (fn: (tx: StoreOps) => Promise<unknown>, opts?: object) =>
          store.transaction((tx) => fn(watchOps(tx, "tx")), opts);
      }
      return Reflect.get(o, prop, receiver);
    },
  }) as Store;
  const commitAll = h.deps.git.commitAll.bind(h.deps.git);
  h.deps.git.commitAll = async (...args) => {
    const sha = await commitAll(...args);
    if (sha !== null) log.push("git commit");
    return sha;
  };
  return log;
}

describe("an agent's reply is saved with its stage's record unless something needs it sooner", () => {
  it("edit: before the git commit; no-op stage: one commit; retried review: before the retry", async () => {
    const h = await harness({
      goldenWorkflows: ["held-reply.kdl"],
      agents: {
        implementer: byStage({
          look: () => ({ text: "Nothing to change." }),
          edit: (req) => {
            writeFileSync(join(req.cwd, "src/feature.js"), "export const one = 1;\n");
            return { text: "Added src/feature.js." };
          },
        }),
        reviewer: (_req, ctx) => (ctx.invocation === 1 ? garbageReply() : reviewReply("APPROVED")),
      },
    });
    const log = recordWrites(h);
    const calls: string[] = [];
    h.listen((e) => {
      if (e.type === "stage.started") calls.push(e.stageId);
    });
    const t = await h.addTask({ workflow: "held-reply" });
    const summary = await h.runAll();
    expect(summary.errors).toEqual([]);
    expect(calls).toEqual(["edit", "look", "check", "done"]);

    const at = (line: string) => {
      const i = log.indexOf(line);
      expect(i, `${line} in\n${log.join("\n")}`).toBeGreaterThanOrEqual(0);
      return i;
    };
    // The editing stage: its reply is saved on its own before its work is committed to git.
    expect(at("tx reply edit")).toBeLessThan(at("git commit"));
    expect(log.filter((l) => l.endsWith("reply edit"))).toHaveLength(1);
    // The stage whose agent then changed nothing: one commit, its record with the turn's
    // transcript; the record stands in for the reply, which is written nowhere.
    expect(log.filter((l) => l.includes("look"))).toEqual([
      expect.stringMatching(/^(commit|tx) stage look \+ transcript$/),
    ]);
    // The review: the unreadable first reply is saved before the reviewer is asked again; the
    // second one's record has its transcript.
    expect(log.filter((l) => l.includes("check"))).toEqual([
      "tx reply check",
      expect.stringMatching(/^(commit|tx) stage check \+ transcript$/),
    ]);
    expect(h.callsOf("reviewer")).toHaveLength(2);

    expect((await h.task(t.id)).finalVerdict).toBe("APPROVED");
    const saved = await h.store.getMarker(`turns:${t.id}:1:check`);
    expect(saved).toMatchObject({ turns: { "1": { ok: true } } });
    expect(saved).not.toHaveProperty("turns.2");
  });
});
