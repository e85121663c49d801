import { describe, expect, test } from "vitest";
import { DiagnosticsError, formatDiagnostic } from "../errors.js";
import { envLayer } from "./env.js";
import { parseConfigText } from "./parse.js";

const parse = (text: string) => parseConfigText(text, "/repo/fixpoint.kdl", { home: "/home/u" });

describe("defaults push-remote", () => {
  test("is absent unless configured, read from the file or FIXPOINT_PUSH_REMOTE", () => {
    expect(parse("defaults {\n    max-cycles 2\n}\n").defaults.pushRemote).toBeUndefined();
    expect(parse('defaults {\n    push-remote "origin"\n}\n').defaults.pushRemote).toBe("origin");
    expect(envLayer({ FIXPOINT_PUSH_REMOTE: "upstream" }, "/repo").defaults.pushRemote).toBe("upstream");
  });

  test("a value git would read as an option is refused at its position", () => {
    let message = "";
    try {
      parse('defaults {\n    push-remote "--upload-pack=x"\n}\n');
    } catch (e) {
      if (e instanceof DiagnosticsError) message = e.diagnostics.map(formatDiagnostic).join("\n");
    }
    expect(message).toMatch(/^\/repo\/fixpoint\.kdl:2:\d+: `push-remote` must name a git remote/);
    expect(() => envLayer({ FIXPOINT_PUSH_REMOTE: "-x" }, "/repo")).toThrow(/FIXPOINT_PUSH_REMOTE/);
  });
});
