import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  redactBytes,
  redactDeep,
  redactSecrets,
  setRedactedEnvNames,
  TOKEN_HINT,
  TOKEN_SHAPES,
  withEnvReadOnce,
} from "./redact.js";

const noEnv = {};

describe("redactSecrets", () => {
  it("replaces the values of secret-looking environment variables", () => {
    const env = {
      MY_API_KEY: "abcd1234efgh",
      DB_PASSWORD: "hunter2hunter2",
      HOME: "/home/someone",
      SHORT_TOKEN: "abc",
    };
    const out = redactSecrets("key=abcd1234efgh pw=hunter2hunter2 home=/home/someone t=abc", env);
    expect(out).toBe("key=[REDACTED] pw=[REDACTED] home=/home/someone t=abc");
  });

  it("redacts a longer secret whole even when it contains a shorter one", () => {
    const env = { A_TOKEN: "secretvalue", B_TOKEN: "secretvalue-extended" };
    expect(redactSecrets("x secretvalue-extended y", env)).toBe("x [REDACTED] y");
  });

  it.each([
    [`ghp_${"a".repeat(36)}`, "[REDACTED]"],
    [`github_pat_11ABCDEFG0_${"x".repeat(40)}`, "[REDACTED]"],
    [`sk-ant-api03-${"Zz9_".repeat(10)}`, "[REDACTED]"],
    [`sk-proj-${"A1b2".repeat(8)}`, "[REDACTED]"],
    ["xoxb-1234-5678-abcdefghij", "[REDACTED]"],
    ["Authorization: Bearer eyJhbGciOi.payload.sig", "Authorization: Bearer [REDACTED]"],
    ["postgres://fix:s3cr3t@db.example:5432/fp", "postgres://fix:[REDACTED]@db.example:5432/fp"],
    ["https://x-access-token:abc123xyz@github.com/o/r", "https://x-access-token:[REDACTED]@github.com/o/r"],
  ])("hides the token shape in %s", (input, expected) => {
    expect(redactSecrets(`before ${input} after`, noEnv)).toBe(`before ${expected} after`);
  });

  it("leaves ordinary text alone", () => {
    const text = "task-12345678 uses sk-learn; postgres://localhost/db; the key is in ~/.ssh";
    expect(redactSecrets(text, noEnv)).toBe(text);
  });

  it("reads process.env by default", () => {
    const name = "FIXPOINT_TEST_REDACT_TOKEN";
    process.env[name] = "value-from-process-env";
    try {
      expect(redactSecrets("got value-from-process-env")).toBe("got [REDACTED]");
    } finally {
      delete process.env[name];
    }
  });
});

describe("redactSecrets: every documented shape, anywhere in any text", () => {
  const b64 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const tokenChars = fc.string({ unit: fc.constantFrom(...b64.split("")), minLength: 24, maxLength: 48 });
  const secret = fc.oneof(
    fc.tuple(fc.constantFrom("ghp_", "gho_", "ghs_", "ghu_", "ghr_"), tokenChars).map(([p, t]) => p + t),
    tokenChars.map((t) => `github_pat_11A_${t}`),
    tokenChars.map((t) => `sk-ant-api03-${t}`),
    tokenChars.map((t) => `sk-proj-${t}`),
    tokenChars.map((t) => `sk-${t}`),
    fc
      .tuple(
        fc.constantFrom("AKIA", "ASIA"),
        fc.string({
          unit: fc.constantFrom(..."ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".split("")),
          minLength: 16,
          maxLength: 16,
        }),
      )
      .map(([p, t]) => p + t),
    fc.tuple(fc.constantFrom("xoxb-", "xoxa-", "xoxp-", "xoxr-", "xoxs-"), tokenChars).map(([p, t]) => p + t),
    fc.tuple(tokenChars, tokenChars).map(([a, c]) => `eyJhbGciOiJIUzI1NiJ9.eyJ${a}.${c}`),
  );
  const filler = fc.string({ maxLength: 60 }).map((s) => s.replace(/[A-Za-z0-9_-]$/, ""));

  it("a planted token never survives, and no cut of the redacted text reveals 12 of its characters", () => {
    fc.assert(
      fc.property(filler, secret, filler, fc.nat(), (before, token, after, cutAt) => {
        const text = `${before} ${token} ${after}`;
        const out = redactSecrets(text, noEnv);
        expect(out).not.toContain(token);
        // Truncation after redaction never brings a piece back.
        const cut = out.slice(0, cutAt % (out.length + 1));
        expect(cut).not.toContain(token.slice(0, 12));
      }),
      { numRuns: 300 },
    );
  });

  it("a token cut short before redaction loses its remaining prefix too", () => {
    fc.assert(
      fc.property(
        filler,
        secret,
        fc.integer({ min: 10, max: 20 }),
        fc.constantFrom("", "…", "...", " … [truncated]"),
        (before, token, keep, mark) => {
          // A JWT's first segment is only its header (`{"alg":…}`): no secret to hide there.
          fc.pre(!token.startsWith("eyJ"));
          // Keep the known prefix and at least 6 characters of the secret after it.
          const known =
            /^(github_pat_|sk-ant-|sk-proj-|sk-|gh[a-z]_|xox[a-z]-|AKIA|ASIA)/.exec(token)?.[0] ?? "";
          const prefix = token.slice(0, known.length + keep - 4);
          const out = redactSecrets(`${before} ${prefix}${mark}`, noEnv);
          expect(out).not.toContain(prefix);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("hides a PEM private key block whole, and one whose end was cut off", () => {
    const pem =
      "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA1234\nabcdEFGH5678\n-----END RSA PRIVATE KEY-----";
    expect(redactSecrets(`key:\n${pem}\ndone`, noEnv)).toBe("key:\n[REDACTED]\ndone");
    expect(redactSecrets(`key:\n${pem.slice(0, 50)}`, noEnv)).toBe("key:\n[REDACTED]");
    // Inside JSON output (newlines escaped), a cut-off key never swallows the rest of the document.
    const json = JSON.stringify({ body: pem.slice(0, 60), next: "kept" });
    expect(JSON.parse(redactSecrets(json, noEnv))).toEqual({ body: "[REDACTED]", next: "kept" });
  });

  it.each([
    ["Authorization: token abcdef123456", "Authorization: token [REDACTED]"],
    ["Authorization: Basic dXNlcjpwYXNz", "Authorization: Basic [REDACTED]"],
    ['"authorization": "Bearer abc.def.ghi"', '"authorization": "Bearer [REDACTED]"'],
  ])("hides the credential of an Authorization header: %s", (input, expected) => {
    expect(redactSecrets(input, noEnv)).toBe(expected);
  });

  it("hides the values of the default and the configured secret variables, whatever their names", () => {
    const env = { GH_TOKEN: "ghvalue1", MY_DEPLOY: "deploy-value-42", UNRELATED: "deploy-value-43" };
    expect(redactSecrets("a ghvalue1 b deploy-value-42 c deploy-value-43", env)).toBe(
      "a [REDACTED] b deploy-value-42 c deploy-value-43",
    );
    setRedactedEnvNames(["MY_DEPLOY"]);
    try {
      expect(redactSecrets("b deploy-value-42 c deploy-value-43", env)).toBe(
        "b [REDACTED] c deploy-value-43",
      );
    } finally {
      setRedactedEnvNames([]);
    }
  });

  it("redactDeep reaches every string of a nested value and keeps the rest", () => {
    const token = `ghp_${"b".repeat(30)}`;
    const value = { a: [1, { b: `x ${token}` }], c: null, d: true, e: "plain" };
    expect(redactDeep(value, noEnv)).toEqual({ a: [1, { b: "x [REDACTED]" }], c: null, d: true, e: "plain" });
    const clean = { a: ["plain"] };
    expect(redactDeep(clean, noEnv)).toBe(clean);
  });
});

describe("the token hint", () => {
  // Pieces that make up every token shape, in several cases, among ordinary text.
  const piece = fc.constantFrom(
    "sk-",
    "sk-ant-",
    "sk-proj-",
    "ghp_",
    "gho_",
    "github_pat_",
    "xoxb-",
    "AKIA",
    "ASIA",
    "ACCA",
    "eyJ",
    "eyJhbGciOiJ.eyJzdWIiOiJ.sig",
    ".",
    "-----BEGIN RSA PRIVATE KEY-----",
    "Authorization: ",
    "AUTHORIZATION=",
    "bEaReR ",
    "Bearer ",
    "postgres://",
    "u:",
    "@",
    "…",
    "...",
    " ",
    "ABCDEFGHIJKLMNOP0123",
    "abcdefghijklmnopqrstuvwxyz_-0123",
  );
  const text = fc
    .array(fc.oneof(piece, fc.string({ maxLength: 4 })), { maxLength: 12 })
    .map((a) => a.join(""));

  it("property: whatever a token shape matches, the hint matches too (so skipping is safe)", () => {
    fc.assert(
      fc.property(text, (t) => {
        const shaped = TOKEN_SHAPES.some((re) => new RegExp(re.source, re.flags.replace("g", "")).test(t));
        if (shaped) expect(TOKEN_HINT.test(t)).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("lets a text without any hint through unchanged, and still redacts one with a token", () => {
    const plain = '{"id":"t-1","title":"Add mean() and median()","status":"queued"}';
    expect(TOKEN_HINT.test(plain)).toBe(false);
    expect(redactSecrets(plain, noEnv)).toBe(plain);
    expect(redactSecrets(`${plain} bearer abcdefgh12345`, noEnv)).toBe(`${plain} bearer [REDACTED]`);
  });
});

describe("redactSecrets: a token glued to what comes before it", () => {
  const b64 = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  const chars = fc.string({ unit: fc.constantFrom(...b64.split("")), minLength: 24, maxLength: 40 });
  const planted = fc.oneof(
    chars.map((t) => `ghp_${t}`),
    chars.map((t) => `github_pat_11A_${t}`),
    chars.map((t) => `sk-ant-api03-${t}`),
    chars.map((t) => `sk-proj-${t}`),
    chars.map((t) => `xoxb-1-${t}`),
    fc.constant("AKIAIOSFODNN7EXAMPLE"),
    fc.tuple(chars, chars).map(([a, c]) => `eyJhbGciOiJIUzI1NiJ9.eyJ${a}.${c}`),
  );
  const text = fc.string({ maxLength: 40 });

  it("inside a JSON-encoded text (a raw agent stream), after \\n, \\t, \\u escapes or a quote", () => {
    fc.assert(
      fc.property(
        text,
        fc.constantFrom("\n", "\t", "\r", "\u0001", '"', "\\"),
        planted,
        text,
        (a, sep, tok, b) => {
          // The raw stream line holds the text JSON-encoded: the token sits right after an escape.
          const line = JSON.stringify({ type: "tool_result", content: `${a}${sep}${tok}\n${b}` });
          expect(redactSecrets(line, noEnv)).not.toContain(tok);
          expect(redactSecrets(JSON.stringify(line), noEnv)).not.toContain(tok);
        },
      ),
      { numRuns: 300 },
    );
  });

  it("after `_`, `-`, `=` or `/`, where a word boundary does not help", () => {
    for (const tok of [
      "ghp_0123456789abcdefghijABCDEFGHIJ",
      "AKIAIOSFODNN7EXAMPLE",
      "sk-ant-api03-abcdefgh12345",
    ]) {
      for (const before of ["MY_TOKEN_", "x-", "key=", "path/"]) {
        expect(redactSecrets(`${before}${tok} end`, noEnv)).toBe(`${before}[REDACTED] end`);
      }
    }
    expect(redactSecrets('{"h":"curl\\nAuthorization: token abcdef123456"}', noEnv)).not.toContain(
      "abcdef123456",
    );
  });

  it("still leaves words that merely contain a prefix alone", () => {
    for (const ok of [
      "the task-runner-service-for-everyone",
      "disk-usage-monitoring-agent",
      "washing_ghp_x",
      "TASKIA",
    ]) {
      expect(redactSecrets(ok, noEnv)).toBe(ok);
    }
  });
});

describe("withEnvReadOnce", () => {
  it("redacts with process.env as it was when the call began, and reads it afresh after", () => {
    const name = "FIXPOINT_TEST_PINNED_TOKEN";
    process.env[name] = "pinned-secret-value";
    try {
      const inside = withEnvReadOnce(() => [
        redactSecrets("a pinned-secret-value"),
        redactDeep({ nested: ["b pinned-secret-value"] }),
        withEnvReadOnce(() => redactSecrets("c pinned-secret-value")),
      ]);
      expect(inside).toEqual(["a [REDACTED]", { nested: ["b [REDACTED]"] }, "c [REDACTED]"]);
      process.env[name] = "another-secret-value";
      expect(redactSecrets("d another-secret-value")).toBe("d [REDACTED]");
      // An explicit environment is used as given.
      expect(withEnvReadOnce(() => redactSecrets("e another-secret-value", noEnv))).toBe(
        "e another-secret-value",
      );
    } finally {
      delete process.env[name];
    }
  });
});

describe("redactBytes", () => {
  const env = { DEPLOY_TOKEN: "deploy-value-4711-kept", HOME: "/home/someone" };
  const utf8 = (s: string) => Buffer.from(s, "utf8");

  it("hands back the same bytes, uncopied, when nothing needs hiding", () => {
    const page = utf8('{"title":"ünïcode — plain"},{"title":"/home/someone"}');
    expect(redactBytes(page, true, env)).toBe(page);
    expect(redactBytes(page, false, env)).toBe(page);
  });

  it("is redactSecrets on the decoded text, for any text, screened or not", () => {
    const piece = fc.oneof(
      fc.string(),
      fc.constantFrom("deploy-value-4711-kept", "ghp_abcdefghijklmnopqrstuvwxyz0123", "é—ü", "\u0000"),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (parts) => {
        const text = parts.join("");
        const out = Buffer.from(redactBytes(utf8(text), false, env)).toString("utf8");
        expect(out).toBe(redactSecrets(text, env));
        // A page the store screened for token shapes still has its secret values hidden.
        expect(Buffer.from(redactBytes(utf8(text), true, env)).toString("utf8")).not.toContain(
          "deploy-value-4711-kept",
        );
      }),
    );
  });
});
