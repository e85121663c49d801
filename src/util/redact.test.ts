import { describe, expect, it } from "vitest";
import { redactSecrets } from "./redact.js";

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
