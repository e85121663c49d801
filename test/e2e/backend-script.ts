import type { Conversation, FakeScript, Reply, Usage } from "./fake-model/server.js";

/**
 * The fake model's script for the backend end-to-end tests. The prompt says what it wants with
 * a keyword; every rule looks at the conversation, never at a request count, so the clients'
 * side requests (and retries) get sensible answers too.
 */

export const WRITE_USAGE: Usage = { input: 1000, output: 50, cacheRead: 200, cacheWrite: 10 };
export const DONE_USAGE: Usage = { input: 1300, output: 20, cacheRead: 0, cacheWrite: 0 };
export const REVIEW = {
  verdict: "request_changes",
  findings: [{ severity: "major", title: "missing test", file: "a.ts" }],
};

export const REVIEW_SCHEMA = {
  type: "object",
  properties: {
    verdict: { type: "string", enum: ["approve", "request_changes"] },
    findings: {
      type: "array",
      items: {
        type: "object",
        properties: { severity: { type: "string" }, title: { type: "string" }, file: { type: "string" } },
        required: ["severity", "title", "file"],
        additionalProperties: false,
      },
    },
  },
  required: ["verdict", "findings"],
  additionalProperties: false,
};

const WRITE = /WRITE_FILE path=(\S+) content=(\S+)/;

/** The tool call that writes a file, in the calling CLI's own tool. */
function writeCall(c: Conversation): Reply {
  const m = WRITE.exec(c.firstUserText);
  const path = m?.[1] ?? "missing-path";
  const content = m?.[2] ?? "missing-content";
  const usage = WRITE_USAGE;
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

const has = (c: Conversation, word: string): boolean => c.firstUserText.includes(word);

export function backendScript(): FakeScript {
  return {
    rules: [
      { name: "hang", when: (c) => has(c, "HANG_NOW"), reply: { hang: true } },
      {
        name: "400",
        when: (c) => has(c, "FAIL_400"),
        reply: { error: { status: 400, message: "prompt is malformed" } },
      },
      {
        name: "401",
        when: (c) => has(c, "FAIL_401"),
        reply: { error: { status: 401, message: "invalid x-api-key" } },
      },
      {
        name: "500",
        when: (c) => has(c, "FAIL_500"),
        reply: { error: { status: 500, message: "the model fell over" } },
      },
      // Claude Code's --json-schema: the answer is a StructuredOutput tool call.
      {
        name: "structured-tool",
        when: (c) => c.tools.includes("StructuredOutput") && !c.lastIsToolResult,
        reply: { toolCall: { name: "StructuredOutput", input: REVIEW }, usage: DONE_USAGE },
      },
      // The API's own JSON-schema output (Codex --output-schema, the HTTP backends) and pi,
      // which states the schema in the prompt.
      {
        name: "structured-text",
        when: (c) => c.schema !== undefined || (has(c, "REVIEW_NOW") && !c.lastIsToolResult),
        reply: { text: JSON.stringify(REVIEW), usage: DONE_USAGE },
      },
      { name: "write", when: (c) => has(c, "WRITE_FILE") && !c.lastIsToolResult, reply: writeCall },
      {
        name: "after-tool",
        when: (c) => c.lastIsToolResult,
        reply: { text: "DONE: the file is written", usage: DONE_USAGE },
      },
      {
        name: "recall",
        when: (c) => c.lastUserText.includes("RECALL_WORD"),
        reply: (c) => ({
          text: c.transcript.includes("PINEAPPLE") ? "you said PINEAPPLE" : "I do not know",
          usage: DONE_USAGE,
        }),
      },
      {
        name: "remember",
        when: (c) => has(c, "REMEMBER"),
        reply: { text: "noted the word", usage: DONE_USAGE },
      },
    ],
    fallback: { text: "ok", usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 } },
  };
}
