import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { extractJson, jsonObjectFromText } from "./json-extract.js";

const object = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 5 });
/** Prose around the JSON: no braces, brackets or fences of its own (`[ {…} ]` is an array). */
const prose = fc.string().map((s) => s.replace(/[{}[\]`~]/g, ""));

describe("the JSON in an agent's reply (one extractor for parsers and backends)", () => {
  it("property: an object is found bare, in a ```json fence after prose, or inside prose", () => {
    fc.assert(
      fc.property(object, prose, prose, (original, before, after) => {
        const json = JSON.stringify(original);
        const value: unknown = JSON.parse(json); // as JSON has it (-0 is written as 0)
        expect(jsonObjectFromText(json)).toEqual(value);
        expect(jsonObjectFromText(`${before}\n\`\`\`json\n${json}\n\`\`\`\n${after}`)).toEqual(value);
        expect(jsonObjectFromText(`${before} ${json} ${after}`)).toEqual(value);
      }),
    );
  });

  it("property: never throws, whatever the text", () => {
    fc.assert(
      fc.property(fc.string(), (text) => {
        extractJson(text);
        jsonObjectFromText(text);
      }),
    );
  });

  it("takes the last json fence: a model that shows an example first answers last", () => {
    const text =
      'For example:\n```json\n{"verdict": "EXAMPLE"}\n```\nMy answer:\n```json\n{"verdict": "APPROVED"}\n```';
    expect(jsonObjectFromText(text)).toEqual({ verdict: "APPROVED" });
    expect(extractJson(text)).toEqual({ ok: true, value: { verdict: "APPROVED" }, from: "json-fence" });
  });

  it("reports a broken fence as invalid JSON; prose without an object is no candidate", () => {
    expect(extractJson('```json\n{"a": 1,\n```')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^invalid JSON/),
    });
    expect(extractJson("I changed `{name}` in the template.")).toBeNull();
    expect(jsonObjectFromText("[1, 2]")).toBeUndefined();
    expect(jsonObjectFromText("no json here")).toBeUndefined();
  });

  it("reads a fence with CRLF line ends, a tagged info string, and one the reply never closed", () => {
    expect(jsonObjectFromText('Review:\r\n```json\r\n{"verdict": "APPROVED"}\r\n```\r\nDone.')).toEqual({
      verdict: "APPROVED",
    });
    expect(jsonObjectFromText('```JSON title="answer"\n{"a": 1}\n```')).toEqual({ a: 1 });
    expect(extractJson('```json\n{"a": 2}\n')).toEqual({ ok: true, value: { a: 2 }, from: "json-fence" });
  });
});
