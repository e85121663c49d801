import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { makeTempDir } from "../../test/helpers/temp.js";
import { newTask } from "../../test/store/samples.js";
import { packArtifact, RAW_ARTIFACT_MAX_BYTES, unpackArtifact } from "./artifact-codec.js";
import { openStore } from "./open.js";

const TOKEN = `ghp_${"Z4k".repeat(12)}`;

describe("packArtifact", () => {
  it("round-trips any text within the cap, and compresses", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 400 }), (text) => {
        const packed = packArtifact(text, 4096);
        expect(packed.truncated).toBe(false);
        expect(packed.size).toBe(Buffer.byteLength(text));
        expect(unpackArtifact(packed.data)).toBe(text);
      }),
    );
    expect(packArtifact("a".repeat(100_000)).data.length).toBeLessThan(1_000);
  });

  it("keeps a small text as its bytes, compresses a larger one, and reads both (and gzip stored before)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 3_000 }), (text) => {
        const packed = packArtifact(text);
        const bytes = Buffer.byteLength(text);
        const raw = packed.data[0] !== 0x1f || packed.data[1] !== 0x8b;
        expect(raw).toBe(bytes <= RAW_ARTIFACT_MAX_BYTES);
        expect(unpackArtifact(packed.data)).toBe(text);
        expect(unpackArtifact(gzipSync(Buffer.from(text, "utf8")))).toBe(text);
      }),
    );
    const log = "stage one: the agent answered; 120 tokens in, 40 out\n".repeat(200);
    expect(packArtifact(log).data.length).toBeLessThan(log.length / 10);
  });

  it("past the cap keeps the first quarter and the last three quarters, and says what it cut", () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 200 }),
        fc.integer({ min: 1, max: 5_000 }),
        (seed, extra) => {
          const max = 256;
          const text = `${"<".repeat(max)}${seed}${">".repeat(max + extra)}`;
          const packed = packArtifact(text, max);
          const back = unpackArtifact(packed.data);
          expect(packed.truncated).toBe(true);
          expect(packed.size).toBe(Buffer.byteLength(text));
          expect(back.startsWith("<".repeat(max / 4))).toBe(true);
          expect(back.endsWith(">".repeat(max - max / 4))).toBe(true);
          expect(back).toMatch(/\[… \d+ bytes cut by fixpoint/);
        },
      ),
      { numRuns: 50 },
    );
  });
});

describe("artifacts through the redacting store", () => {
  it("a secret in a transcript is redacted before it is stored", async () => {
    const dir = makeTempDir("artifact-redact-");
    const store = await openStore("sqlite", dir);
    try {
      const task = await store.createTask(newTask(), 1);
      await store.saveArtifact(
        { taskId: task.id, kind: "transcript", name: "r1.log", text: `used ${TOKEN}` },
        2,
      );
      const [got] = await store.listArtifacts(task.id);
      expect(got?.text).not.toContain(TOKEN);
      expect(got?.text).toMatch(/^used \S+/);
    } finally {
      await store.close();
    }
  });
});
