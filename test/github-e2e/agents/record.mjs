// Shared by the e2e agents: every prompt an agent receives is appended to the JSONL file named
// by FIXPOINT_TEST_PROMPTS, so tests can assert what reached the agents (across killed processes).
import { appendFileSync, existsSync, writeFileSync } from "node:fs";

export function record(role, req) {
  const file = process.env.FIXPOINT_TEST_PROMPTS;
  if (file)
    appendFileSync(
      file,
      `${JSON.stringify({ role, task: req.taskId, stage: req.stageId, cycle: req.cycle, prompt: req.prompt })}\n`,
    );
}

/** True the first time it is called for `key` in this test (a marker file beside the prompts). */
export function firstTime(key) {
  const file = `${process.env.FIXPOINT_TEST_PROMPTS}.${key}`;
  if (existsSync(file)) return false;
  writeFileSync(file, "1");
  return true;
}

/** Finding ids listed in a prompt section, each with the text that follows it (title, body). */
export function findingsIn(section) {
  const hits = [...section.matchAll(/\b(F-\d+)\b/g)];
  const out = [];
  hits.forEach((m, i) => {
    if (out.some((f) => f.id === m[1])) return;
    // The text up to the next mention of another finding.
    const next = hits.slice(i + 1).find((h) => h[1] !== m[1]);
    out.push({ id: m[1], text: section.slice(m.index, next ? next.index : m.index + 800) });
  });
  return out;
}
