import { describe, expect, it } from "vitest";
import { parseConfigText } from "../../../src/config/parse.js";
import { DiagnosticsError, formatDiagnostic } from "../../../src/errors.js";

const parse = (text: string) => parseConfigText(text, "/repo/fixpoint.kdl", { home: "/home/u" });

describe("github bots config", () => {
  it("reads a bots block with per-bot default severity and reply command", () => {
    const layer = parse(`
github repo="acme/shop" {
    bots {
        coderabbitai severity="P1" command="@coderabbitai resolve"
        "acme-reviewer[bot]" severity="minor"
    }
}`);
    expect(layer.github?.bots).toEqual(["coderabbitai", "acme-reviewer"]);
    expect(layer.github?.botSettings).toEqual({
      coderabbitai: { severity: "P1", command: "@coderabbitai resolve" },
      "acme-reviewer": { severity: "P2" },
    });
  });

  it("still reads bots as a list, on the line or as a child", () => {
    expect(parse('github repo="acme/shop" bots="a" "b"').github?.bots).toEqual(["a", "b"]);
    expect(parse('github repo="acme/shop" {\n  bots "a" "b"\n}').github?.bots).toEqual(["a", "b"]);
  });

  it("rejects an unknown severity with the file position", () => {
    try {
      parse('github repo="acme/shop" {\n  bots {\n    x severity="urgent"\n  }\n}');
      expect.unreachable("the config must be rejected");
    } catch (e) {
      if (!(e instanceof DiagnosticsError)) throw e;
      expect(e.diagnostics.map(formatDiagnostic).join("\n")).toMatch(/fixpoint\.kdl:3:.*severity/);
    }
  });
});
