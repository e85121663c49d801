import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { HandedTranscript } from "../domain/agent.js";
import { writeTranscript } from "./transcript.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), "fixpoint-transcript-"));
  dirs.push(d);
  return d;
};
const TOKEN = `ghp_${"a1B2".repeat(9)}`;
const sections = [
  { title: "prompt", body: "do it" },
  { title: "reply", body: `done with ${TOKEN}` },
];

describe("writeTranscript handing the text over (AgentRequest.onTranscript)", () => {
  it("hands over the redacted text at once; its write makes the same text an owner-only file", async () => {
    const path = join(temp(), "t-1", "r1-implement-c0-v1-a1.log");
    let handed: HandedTranscript | undefined;
    expect(await writeTranscript(path, sections, {}, (t) => (handed = t))).toBeUndefined();
    expect(handed?.text).toContain("## reply\ndone with [REDACTED]");
    expect(handed?.text).not.toContain(TOKEN);
    // The caller writes the file when it chooses: not before.
    expect(existsSync(path)).toBe(false);
    expect(handed?.write()).toBeUndefined();
    expect(readFileSync(path, "utf8")).toBe(handed?.text);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    // Written without a hand-over: the same bytes.
    const direct = join(temp(), "direct.log");
    expect(await writeTranscript(direct, sections, {})).toBeUndefined();
    expect(readFileSync(direct, "utf8")).toBe(handed?.text);
  });

  it("replaces an older file at the path and makes it owner-only again", async () => {
    const path = join(temp(), "again.log");
    writeFileSync(path, "older run", { mode: 0o644 });
    let handed: HandedTranscript | undefined;
    await writeTranscript(path, sections, {}, (t) => (handed = t));
    expect(handed?.write()).toBeUndefined();
    expect(readFileSync(path, "utf8")).toBe(handed?.text);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("says from `write` why the file could not be written, and still hands the text over", async () => {
    const blocker = join(temp(), "a-file");
    writeFileSync(blocker, "");
    const path = join(blocker, "t-1", "x.log");
    let handed: HandedTranscript | undefined;
    expect(await writeTranscript(path, sections, {}, (t) => (handed = t))).toBeUndefined();
    expect(handed?.text).toContain("## prompt\ndo it");
    expect(handed?.write()).toMatch(/^cannot write transcript .*x\.log: /);
    expect(existsSync(path)).toBe(false);
  });
});
