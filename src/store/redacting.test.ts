import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeTempDir } from "../../test/helpers/temp.js";
import { bareCommit, finding, newTask, stage } from "../../test/store/samples.js";
import { openStore } from "./open.js";

const TOKEN = `ghp_${"Q7x".repeat(12)}`;
const AWS = "AKIAIOSFODNN7EXAMPLE";

/** Every byte the SQLite store left on disk (the database and any journal beside it). */
function storeBytes(dir: string): string {
  const fp = join(dir, ".fixpoint");
  return readdirSync(fp)
    .map((f) => readFileSync(join(fp, f)).toString("latin1"))
    .join("\n");
}

describe("the store redacts every write, whoever forgot to", () => {
  it("no planted secret reaches the database file, through any write or a transaction", async () => {
    const dir = makeTempDir("redact-store-");
    const store = await openStore("sqlite", dir);
    try {
      const task = await store.createTask(newTask({ prompt: `use ${TOKEN} to push` }), 1);
      await store.updateTask(task.id, { reason: `failed with ${AWS}` }, 2);
      const run = await store.createRun(task.id, "start", {}, 3);
      await store.commitStage({
        taskId: task.id,
        runId: run.id,
        stage: stage(task.id, run.id, { summary: `leaked ${TOKEN}`, failureReason: `key ${AWS}` }),
        checkpoint: { state: { next: "fix", notes: [`said ${TOKEN}`] } },
        findings: [finding(task.id, "F-1", { body: `log shows ${TOKEN}`, title: `token ${AWS}` })],
        events: [{ taskId: task.id, runId: run.id, type: "note", data: { text: `x ${TOKEN}` } }],
        task: { reason: `still ${TOKEN}` },
        now: 4,
      });
      await store.transaction(async (tx) => {
        await tx.appendEvents([{ taskId: task.id, runId: null, type: "note", data: { t: AWS } }], 5);
        await tx.setMarker("reply:1", { body: `posted ${TOKEN}` }, 5);
      });
      const [f] = await store.listFindings(task.id);
      expect(f?.body).toBe("log shows [REDACTED]");
      expect(f?.id).toBe("F-1");
      expect((await store.getTask(task.id))?.reason).toBe("still [REDACTED]");
    } finally {
      await store.close();
    }
    const bytes = storeBytes(dir);
    expect(bytes).not.toContain(TOKEN);
    expect(bytes).not.toContain(AWS);
    expect(bytes).toContain("[REDACTED]");
  });

  it("learning text is redacted, whether added alone or with a stage commit", async () => {
    const dir = makeTempDir("redact-learn-");
    const store = await openStore("sqlite", dir);
    try {
      const task = await store.createTask(newTask(), 1);
      const run = await store.createRun(task.id, "start", {}, 2);
      const base = {
        repo: dir,
        scope: null,
        source: { kind: "person" as const },
        origin: null,
        createdAt: 3,
        createdBy: "alice",
      };
      const added = await store.addLearning({ ...base, text: `the test key ${TOKEN} is fake` });
      expect(added.text).toBe("the test key [REDACTED] is fake");
      await store.commitStage(
        bareCommit(task.id, run.id, {
          now: 4,
          learnings: { add: [{ ...base, text: `refuted: ${AWS} is an example` }], hits: [] },
        }),
      );
      expect((await store.listLearnings()).map((l) => l.text)).toEqual([
        "the test key [REDACTED] is fake",
        "refuted: [REDACTED] is an example",
      ]);
    } finally {
      await store.close();
    }
    const bytes = storeBytes(dir);
    expect(bytes).not.toContain(TOKEN);
    expect(bytes).not.toContain(AWS);
  });
});
