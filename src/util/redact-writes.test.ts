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
});
