import { beforeAll, describe, expect, it } from "vitest";
import { type DemoProject, demoProject } from "../helpers/cli.js";

const SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

/** Issue 9 item 2: a task's priority orders claims; its notes are kept redacted; both are edited with who and when. */
describe("task priority and notes", () => {
  let cli: DemoProject["cli"];

  beforeAll(() => {
    ({ cli } = demoProject("fixpoint-priority-"));
  });

  it("add takes --priority and --notes; status --json and show --json report them, the secret redacted", () => {
    expect(cli("add", "first task").code).toBe(0);
    const added = cli("add", "urgent task", "--priority", "7", "--notes", `ask carol; token ${SECRET}`);
    expect(added.stdout).toBe("queued t-2  implement  urgent task  (priority 7)\n");
    const status = JSON.parse(cli("status", "--json").stdout) as { id: string; priority: number }[];
    expect(status.map((t) => [t.id, t.priority])).toEqual([
      ["t-1", 0],
      ["t-2", 7],
    ]);
    const shown = JSON.parse(cli("show", "t-2", "--json").stdout);
    expect(shown.task).toMatchObject({ priority: 7, notes: "ask carol; token [REDACTED]" });
    expect(JSON.stringify(shown)).not.toContain(SECRET);
    expect(JSON.parse(cli("show", "t-1", "--json").stdout).task).toMatchObject({ priority: 0, notes: null });
    expect(cli("show", "t-2").stdout).toContain("\n  priority 7\n  notes ask carol; token [REDACTED]\n");
  });

  it("edit changes priority (negative too) and notes, each change an event with who and when", () => {
    const r = cli("edit", "t-1", "--priority", "-2", "--notes", "later");
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('t-1: priority 0 → -2\nt-1: notes null → "later"\n');
    const shown = JSON.parse(cli("show", "t-1", "--json").stdout);
    expect(shown.task).toMatchObject({ priority: -2, notes: "later" });
    const events = cli("logs", "t-1", "--json")
      .stdout.trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { type: string; data: Record<string, unknown> });
    const edited = events.find((e) => e.type === "task.edited");
    expect(edited?.data).toMatchObject({ priority: [0, -2], notes: [null, "later"] });
    expect(typeof edited?.data.by).toBe("string");
    expect(Number.isNaN(Date.parse(String(edited?.data.at)))).toBe(false);
    expect(cli("edit", "t-1", "--notes", "").stdout).toBe('t-1: notes "later" → null\n');
  });

  it("a priority that is not a whole number is a usage error (exit 2) naming the flag", () => {
    for (const args of [
      ["add", "x", "--priority", "high"],
      ["edit", "t-1", "--priority", "1.5"],
    ]) {
      const r = cli(...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toBe(`fixpoint: --priority takes a whole number, not \`${args[3]}\`\n`);
    }
    expect(cli("status", "--json").stdout).not.toContain('"title":"x"');
  });
});
