import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { drained } from "./io.js";

/** A writable whose reader takes each chunk only when `take` is called, like a slow pipe. */
function slowPipe() {
  const pending: (() => void)[] = [];
  const stream = new Writable({
    highWaterMark: 4,
    write(_chunk, _encoding, callback) {
      pending.push(callback);
    },
  });
  return { stream, take: () => pending.shift()?.() };
}

describe("Io.drained", () => {
  it("resolves at once when nothing waits to be written", async () => {
    const { stream } = slowPipe();
    await expect(drained(stream)).resolves.toBeUndefined();
  });

  it("waits until the reader has taken what was buffered", async () => {
    const { stream, take } = slowPipe();
    stream.write("0123456789");
    stream.write("more");
    let done = false;
    const wait = drained(stream).then(() => {
      done = true;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    take();
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(false);
    take();
    await wait;
    expect(done).toBe(true);
  });

  it("ends the wait when the stream is destroyed before it drains", async () => {
    const { stream } = slowPipe();
    stream.write("0123456789");
    const wait = drained(stream);
    stream.destroy();
    await expect(wait).resolves.toBeUndefined();
  });
});
