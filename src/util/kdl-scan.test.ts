import { getLocation, InvalidKdlError, parse } from "@bgotink/kdl";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { kdlPosition, MANY_ERRORS, scanKdl } from "./kdl-scan.js";
import { parseKdlSafely } from "./parse-kdl.js";

/** The library's verdict on `text`: its errors' messages, or [] when it parses. */
function libraryErrors(text: string): string[] {
  try {
    parse(text);
    return [];
  } catch (e) {
    if (e instanceof InvalidKdlError) return [...e.flat()].map((x) => x.message);
    return [String(e)];
  }
}

/** The errors the library locates by re-splitting the string: the ones scanKdl must keep few. */
const SLOW = /unescaped newlines|must start with the offset|Invalid unicode escape/;

/** The library's SLOW errors counted by the string they are in (the offset where its token starts). */
function slowErrorsPerString(text: string): Map<number, number> {
  const counts = new Map<number, number>();
  try {
    parse(text);
  } catch (e) {
    if (!(e instanceof InvalidKdlError)) throw e;
    for (const x of e.flat()) {
      if (!SLOW.test(x.message)) continue;
      const at = x.token?.start.offset ?? -1;
      counts.set(at, (counts.get(at) ?? 0) + 1);
    }
  }
  return counts;
}

describe("scanKdl: strings with an error on every line are refused without parsing", () => {
  const lines = (n: number, line: string) => Array(n).fill(line).join("\n");
  const megabyte = 500_000;

  it.each([
    ["a raw string left open over the file", `a #"${lines(megabyte, "x")}"#\n`, 1, 6],
    ["a quoted string over many lines", `node "${lines(megabyte, "x")}"\n`, 1, 8],
    [
      "a multi-line string indented less than its last line",
      `a """\n${lines(megabyte, "x")}\n    """\n`,
      2,
      1,
    ],
    ["unicode escapes without braces", `a "${"\\u12".repeat(megabyte / 2)}"\n`, 1, 4],
  ])("%s: one diagnostic at the first error, naming where the string starts", (_name, text, line, column) => {
    const parsed = parseKdlSafely(text, "w.kdl");
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.diagnostics).toHaveLength(1);
    const [d] = parsed.diagnostics;
    expect(d?.location).toEqual({ file: "w.kdl", line, column });
    expect(d?.message).toMatch(
      /^invalid KDL: .* \(\d+ errors like this in the string that starts at 1:\d+\)$/,
    );
  });

  it.each([
    ["a raw string", (n: number) => `a 1\nb #"x\n${lines(n, "  y")}"#\n`],
    ["a quoted string", (n: number) => `a 1\nb k="x\n${lines(n, "  y")}"\n`],
    ["a multi-line string", (n: number) => `a 1\nb """\n  x\n${lines(n, " y")}\n  """\n`],
    ["unicode escapes", (n: number) => `a 1\nb "x ${"\\u{12".repeat(n)}"\n`],
  ])("%s: the refusal points where the library's first error is", (_name, text) => {
    const problem = scanKdl(text(MANY_ERRORS + 3));
    expect(problem).toBeDefined();
    const parsed = parseKdlSafely(text(3), "w.kdl");
    expect(parsed.ok).toBe(false);
    if (parsed.ok || !problem) return;
    const { line, column } = parsed.diagnostics[0]?.location ?? {};
    expect(kdlPosition(text(MANY_ERRORS + 3), problem.offset)).toEqual({ line, column });
  });

  it("a few such errors are left to the library, which reports each one", () => {
    const text = `a #"${lines(MANY_ERRORS - 1, "x")}"#\n`;
    expect(scanKdl(text)).toBeUndefined();
    expect(libraryErrors(text)).toHaveLength(MANY_ERRORS - 2);
  });

  it("long valid strings of every kind pass", () => {
    const body = lines(20_000, '    some "text" \\ with # and /* and // in it');
    const text = [
      `a #"""\n${body}\n    """#`,
      `b ##"""\n${body}\n    """"#\n    """##`,
      `c """\n${lines(20_000, '    a \\"quoted\\" line \\u{1F600}')}\n    """`,
      `d "one line\\\n${lines(1_000, "   \\")}\n continued"`,
      '/* a comment with a " and a #" in it /* nested */ still */ e 1',
      '// a line comment with " in it\nf #""#',
    ].join("\n");
    expect(scanKdl(text)).toBeUndefined();
    expect(libraryErrors(text)).toEqual([]);
  });

  it("a { inside a string or a comment does not count towards the nesting limit", () => {
    const braces = "{".repeat(200);
    expect(scanKdl(`a "${braces}"\nb #"${braces}"#\n// ${braces}\n/* ${braces} */`)).toBeUndefined();
    expect(scanKdl(`a ${"{ b ".repeat(65)}`)?.message).toMatch(/nested more than 64 deep/);
  });
});

describe("scanKdl agrees with the KDL library", () => {
  // Mostly plain text, so that strings often run over many lines; now and then a character that
  // ends or escapes something.
  const bodyChar = fc.oneof(
    { arbitrary: fc.constantFrom("x", " ", "1"), weight: 60 },
    {
      arbitrary: fc.constantFrom("\t", "\\", '"', "#", "\n", "\r\n", "u", "{", "}", "/", "*", "\u2028"),
      weight: 1,
    },
    { arbitrary: fc.constantFrom("\\u12", "\\u{1F600}", "\\\n", "\\ "), weight: 1 },
  );
  const line = fc.string({ unit: bodyChar, maxLength: 8 });
  const indent = fc.constantFrom("", " ", "  ", "\t");
  const stringToken = fc
    .tuple(
      fc.constantFrom('"', '#"', '##"', '"""\n', '#"""\n'),
      fc.array(fc.tuple(indent, line), { maxLength: 3 * MANY_ERRORS, size: "max" }),
      indent,
    )
    .map(([open, body, last]) => {
      const hashes = open.match(/^#*/)?.[0] ?? "";
      const close = open.includes('"""') ? `\n${last}"""${hashes}` : `"${hashes}`;
      return `${open}${body.map(([i, l]) => i + l).join("\n")}${close}`;
    });
  const documents = fc
    .tuple(
      fc.constantFrom("", "a 1\n", "// note\n", "/* x */ "),
      fc.constantFrom("n ", "n k=", "(t)n "),
      stringToken,
    )
    .map(([before, node, token]) => `${before}${node}${token}\n`);

  it("what it refuses the library refuses too, and what it passes has few slow errors per string", () => {
    fc.assert(
      fc.property(documents, (text) => {
        const errors = libraryErrors(text);
        if (scanKdl(text) !== undefined) expect(errors.length).toBeGreaterThan(0);
        // Per string: a `"` in a body can close it and open another, each with its own errors.
        else expect(Math.max(0, ...slowErrorsPerString(text).values())).toBeLessThan(MANY_ERRORS);
      }),
      { numRuns: 400 },
    );
  });

  it("kdlPosition counts lines and columns as the library does (CRLF, U+2028, astral characters, a BOM)", () => {
    const piece = fc.constantFrom("a", "é", "😀", " ", "\t", "\r\n", "\n", "\u2028", "\u000b");
    const name = fc.constantFrom("a", "bé", "c😀");
    fc.assert(
      fc.property(
        fc.boolean(),
        fc.array(fc.tuple(fc.string({ unit: piece, maxLength: 6 }), name), { minLength: 1, maxLength: 6 }),
        (bom, nodes) => {
          const text = `${bom ? "\uFEFF" : ""}${nodes.map(([ws, n]) => `${ws.replace(/[^\s]/g, " ")}${n}\n`).join("")}`;
          const document = parse(text, { storeLocations: true });
          for (const node of document.nodes) {
            const start = getLocation(node)?.start;
            if (!start) continue;
            expect(kdlPosition(text, start.offset)).toEqual({ line: start.line, column: start.column });
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
