import type { Conversation, FakeScript, Reply, Usage } from "../fake-model/server.js";

/**
 * The fake model's side of a whole `implement-review` task, scripted by conversation state: the
 * role comes from what fixpoint's prompt asks (implement, review, fix), the step from whether the
 * last message is a tool result and which tool the model called last. The task prompt carries the
 * scenario's words: `IMPL=<content>` (what the implementer writes to greeting.txt),
 * `APPROVE=<content>` (what the reviewer accepts) and `SCENARIO=<name>` (for injected faults).
 * The fixer writes `fixed-<n>`, n counting its own earlier writes in the session it was given:
 * a fixer that continues its session writes fixed-2 where a fresh one writes fixed-1.
 */

export const FILE = "greeting.txt";

export const USAGE = {
  implWrite: { input: 1000, output: 50, cacheRead: 200, cacheWrite: 10 },
  implDone: { input: 1300, output: 20, cacheRead: 0, cacheWrite: 0 },
  review: { input: 800, output: 60, cacheRead: 100, cacheWrite: 0 },
  reviewDone: { input: 900, output: 5, cacheRead: 0, cacheWrite: 0 },
  fixRead: { input: 1050, output: 15, cacheRead: 0, cacheWrite: 0 },
  fixWrite: { input: 1100, output: 40, cacheRead: 300, cacheWrite: 20 },
  fixReport: { input: 1200, output: 70, cacheRead: 0, cacheWrite: 0 },
  fixDone: { input: 1250, output: 5, cacheRead: 0, cacheWrite: 0 },
} satisfies Record<string, Usage>;

export type Role = "implement" | "review" | "fix";

export function roleOf(c: Conversation): Role | null {
  const t = c.lastUserText;
  if (t.includes("You are implementing a task")) return "implement";
  if (t.includes("You are reviewing the work on task")) return "review";
  if (t.includes("You are fixing review findings") || t.includes("ended before the reviewers approved"))
    return "fix";
  return null;
}

function word(c: Conversation, key: string): string {
  return new RegExp(`${key}=(\\S+)`).exec(c.lastUserText)?.[1] ?? `no-${key.toLowerCase()}`;
}

export function scenarioOf(c: Conversation): string {
  return /SCENARIO=(\S+)/.exec(c.transcript)?.[1] ?? "";
}

/** The agent's working directory, as each CLI states it to the model. */
function cwdOf(c: Conversation): string | null {
  const all = `${c.system}\n${c.transcript}`;
  const m =
    /Primary working directory: (\S+)/.exec(all) ??
    /<cwd>([^<]+)<\/cwd>/.exec(all) ??
    /Current working directory: (\S+)/.exec(all);
  return m?.[1] ?? null;
}

/** The name of the tool the model called in its last message, if any. */
function lastToolCalled(c: Conversation): string | null {
  for (let i = c.messages.length - 1; i >= 0; i--) {
    const m = c.messages[i];
    if (m?.role !== "assistant") continue;
    const calls = [...m.text.matchAll(/\[tool (\S+)\]/g)];
    return calls.at(-1)?.[1] ?? null;
  }
  return null;
}

/** Writes `content` to greeting.txt with the calling CLI's own file tool. */
function writeCall(c: Conversation, content: string, usage: Usage): Reply {
  const dir = cwdOf(c);
  const path = dir ? `${dir}/${FILE}` : FILE;
  if (c.tools.includes("Write"))
    return { toolCall: { name: "Write", input: { file_path: path, content } }, usage };
  if (c.tools.includes("write")) return { toolCall: { name: "write", input: { path, content } }, usage };
  if (c.tools.includes("exec_command")) {
    return {
      toolCall: { name: "exec_command", input: { cmd: `printf '%s' '${content}' > '${path}'` } },
      usage,
    };
  }
  return { text: `no write tool among ${c.tools.join(",")}` };
}

/**
 * Claude Code's Write refuses to overwrite a file it has not read in the conversation, so its
 * fixer reads greeting.txt first (pi's `write` and Codex's shell have no such rule).
 */
function readCall(c: Conversation): Reply {
  const dir = cwdOf(c);
  return {
    toolCall: { name: "Read", input: { file_path: dir ? `${dir}/${FILE}` : FILE } },
    usage: USAGE.fixRead,
  };
}

/** A structured answer on the channel the CLI offers: Claude's StructuredOutput tool, else text. */
function structured(c: Conversation, value: unknown, usage: Usage): Reply {
  if (c.tools.includes("StructuredOutput"))
    return { toolCall: { name: "StructuredOutput", input: value as Record<string, unknown> }, usage };
  // Codex with --output-schema: the bare JSON document; pi: the schema is in the prompt.
  return {
    text: c.schema
      ? JSON.stringify(value)
      : `Done.\n\n\`\`\`json\n${JSON.stringify(value, null, 2)}\n\`\`\`\n`,
    usage,
  };
}

/** The finding ids fixpoint listed: the prompt without its output-format section (whose example ids are not real). */
function findingIds(c: Conversation): string[] {
  const listed = c.lastUserText.replace(/^# (?:Output|Your report)\n[\s\S]*?(?=^# |(?![\s\S]))/m, "");
  return [...new Set([...listed.matchAll(/\bF-\d+\b/g)].map((m) => m[0]))];
}

export const FINDING = {
  severity: "P1",
  category: "correctness",
  title: "greeting is only a draft",
  body: "greeting.txt holds a draft greeting, not the one the task asks for.",
  file: FILE,
  line_start: 1,
  line_end: 1,
  suggested_fix: "write the final greeting",
};

function review(c: Conversation): Reply {
  const ids = findingIds(c);
  const approve = c.lastUserText.includes(`+${word(c, "APPROVE")}`);
  const value = approve
    ? {
        verdict: "APPROVED",
        summary: "The greeting is right.",
        findings: [],
        prior: ids.map((id) => ({ id, status: "resolved", note: "checked" })),
      }
    : {
        verdict: "CHANGES_REQUESTED",
        summary: "The greeting is not final.",
        // A finding already reported is answered under `prior`, never repeated as new.
        findings: ids.length ? [] : [FINDING],
        prior: ids.map((id) => ({ id, status: "still_open", note: "still a draft" })),
      };
  return structured(c, value, USAGE.review);
}

/** How many times the fixer already wrote its fix in this conversation. */
function earlierFixes(c: Conversation): number {
  return c.messages.filter(
    (m) => m.role === "assistant" && /\[tool (?:Write|write|exec_command)\][^\n]*fixed-\d/.test(m.text),
  ).length;
}

function fixReport(c: Conversation): Reply {
  const n = earlierFixes(c);
  const findings = findingIds(c).map((id) => ({
    id,
    status: "fixed",
    justification: `${FILE} now holds fixed-${n}`,
    reason: null,
  }));
  return structured(c, { summary: `rewrote ${FILE}`, findings }, USAGE.fixReport);
}

/**
 * `faults` maps a scenario name to the reply its implementer gets (an HTTP error, a hang); the
 * test switches a fault off before it resumes the task.
 */
export function workflowScript(faults: Map<string, Reply>): FakeScript {
  const fault = (c: Conversation) => faults.get(scenarioOf(c));
  return {
    rules: [
      {
        name: "fault",
        when: (c) => roleOf(c) === "implement" && fault(c) !== undefined,
        reply: (c) => fault(c) ?? { text: "" },
      },
      {
        name: "structured-done",
        when: (c) => c.lastIsToolResult && lastToolCalled(c) === "StructuredOutput",
        reply: (c) => ({ text: "Reported.", usage: roleOf(c) === "fix" ? USAGE.fixDone : USAGE.reviewDone }),
      },
      {
        name: "implement-write",
        when: (c) => roleOf(c) === "implement" && !c.lastIsToolResult,
        reply: (c) => writeCall(c, word(c, "IMPL"), USAGE.implWrite),
      },
      {
        name: "implement-done",
        when: (c) => roleOf(c) === "implement",
        reply: { text: `DONE: wrote ${FILE}`, usage: USAGE.implDone },
      },
      { name: "review", when: (c) => roleOf(c) === "review", reply: review },
      {
        name: "fix-read",
        when: (c) => roleOf(c) === "fix" && !c.lastIsToolResult && c.tools.includes("Read"),
        reply: readCall,
      },
      {
        name: "fix-write",
        when: (c) => roleOf(c) === "fix" && (!c.lastIsToolResult || lastToolCalled(c) === "Read"),
        reply: (c) => writeCall(c, `fixed-${earlierFixes(c) + 1}`, USAGE.fixWrite),
      },
      { name: "fix-report", when: (c) => roleOf(c) === "fix", reply: fixReport },
    ],
    fallback: { text: "ok", usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 } },
  };
}
