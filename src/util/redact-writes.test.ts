import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { redactWrites } from "./redact-writes.js";

const TOKEN = `ghp_${"k".repeat(36)}`;

/** A port-like class with a private field, as the real GitHub client and store are. */
class FakePort {
  #posted: unknown[] = [];
  replyToReviewComment(n: number, commentId: number, body: string) {
    this.#posted.push({ n, commentId, body });
    return Promise.resolve(body);
  }
  createPull(input: { head: string; base: string; title: string; body: string }) {
    this.#posted.push(input);
    return Promise.resolve(input);
  }
  getPull(query: string) {
    return Promise.resolve(query);
  }
  async transaction<T>(fn: (tx: FakePort) => Promise<T>): Promise<T> {
    return fn(this);
  }
  posted(): unknown[] {
    return this.#posted;
  }
}

describe("redactWrites", () => {
  const wrapped = () =>
    redactWrites(new FakePort(), {
      writes: /^(create|reply)/,
      identityKeys: new Set(["head", "base"]),
      env: {},
    });

  it("redacts every string a write sends, keeps identity fields and reads as they are", async () => {
    const port = wrapped();
    expect(await port.replyToReviewComment(1, 2, `done; token ${TOKEN}`)).toBe("done; token [REDACTED]");
    await port.createPull({ head: `fixpoint/${TOKEN}`, base: "main", title: `t ${TOKEN}`, body: TOKEN });
    expect(port.posted()[1]).toEqual({
      head: `fixpoint/${TOKEN}`,
      base: "main",
      title: "t [REDACTED]",
      body: "[REDACTED]",
    });
    expect(await port.getPull(TOKEN)).toBe(TOKEN);
  });

  it("wraps the handle a transaction hands to its callback", async () => {
    const port = wrapped();
    await port.transaction((tx) => tx.replyToReviewComment(1, 2, TOKEN));
    expect(port.posted()).toEqual([{ n: 1, commentId: 2, body: "[REDACTED]" }]);
  });

  it("whatever the shape of a write's argument: no token reaches the port, identity fields and the caller's value stay as they were", async () => {
    const text = fc.oneof(fc.string({ maxLength: 12 }), fc.constant(TOKEN), fc.constant(`x ${TOKEN} y`));
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: "small" },
        text,
        fc.integer(),
        fc.constant(null),
        fc.array(tie("node"), { maxLength: 4 }),
        fc.dictionary(fc.constantFrom("head", "body", "title", "x"), tie("node"), { maxKeys: 4 }),
      ),
    })).node;
    await fc.assert(
      fc.asyncProperty(value, async (v) => {
        const port = wrapped();
        const before = JSON.stringify(v);
        await port.createPull(v as never);
        expect(JSON.stringify(v)).toBe(before);
        const sent = port.posted()[0];
        const heads: unknown[] = [];
        const visit = (x: unknown, key?: string): void => {
          if (key === "head") return void heads.push(x);
          if (typeof x === "string") expect(x).not.toContain(TOKEN);
          else if (Array.isArray(x)) for (const y of x) visit(y);
          else if (x && typeof x === "object") for (const [k, y] of Object.entries(x)) visit(y, k);
        };
        visit(sent);
        const originalHeads: unknown[] = [];
        const collect = (x: unknown, key?: string): void => {
          if (key === "head") return void originalHeads.push(x);
          if (Array.isArray(x)) for (const y of x) collect(y);
          else if (x && typeof x === "object") for (const [k, y] of Object.entries(x)) collect(y, k);
        };
        collect(v);
        expect(heads).toEqual(originalHeads);
        // Nothing to hide: the value itself goes through, not a copy.
        if (!before.includes("ghp_")) expect(sent).toBe(v);
      }),
      { numRuns: 300 },
    );
  });
});
