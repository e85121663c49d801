/**
 * The dashboard in a real browser (Debian's Chromium through playwright-core) against the real
 * CLI: `fixpoint serve` and `fixpoint work` as child processes on a real git repository and
 * SQLite file, with scripted agents. Screenshots for docs/dashboard.md are written only with
 * FIXPOINT_WRITE_SCREENSHOTS=1, so `npm test` leaves the tree clean.
 */
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { BrowserContext, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createFixpoint } from "../../src/app/fixpoint.js";
import { openContext } from "../../src/app/project.js";
import { createDemoRepo, demoConfig } from "../../src/demo/project.js";
import { createDashboard } from "../../src/server/app.js";
import { createAppApi } from "../../src/server/app-api.js";
import { listen } from "../../src/server/listen.js";
import { exited, isolatedEnv, runCli, startCli, tempDir } from "../helpers/cli.js";
import { finding } from "../store/samples.js";
import { launchChromium, startServe } from "./browser.js";

const SHOTS = process.env.FIXPOINT_WRITE_SCREENSHOTS === "1";
const IMG = fileURLToPath(new URL("../../docs/img/", import.meta.url));
const XSS = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`;

const SOLO = `workflow "solo" {
    start "implement"
    stage "implement" kind="agent"
    stage "done" kind="exit"
    transition from="implement" to="done"
}
`;
const GATED = `workflow "gated" {
    start "implement"
    stage "implement" kind="agent"
    stage "sign_off" kind="human"
    stage "done" kind="exit"
    stage "refused" kind="exit" verdict="NEEDS_DISCUSSION" reason="a person refused the change"
    transition from="implement" to="sign_off"
    transition from="sign_off" to="done" when=#"outcome("sign_off") == "success""#
    transition from="sign_off" to="refused"
}
`;

let browser: Awaited<ReturnType<typeof launchChromium>>;
let context: BrowserContext;
let root: string;
let repo: string;
let env: NodeJS.ProcessEnv;
const stops: (() => Promise<void>)[] = [];
const cli = (...args: string[]) => runCli(args, { cwd: repo, env });

beforeAll(async () => {
  browser = await launchChromium();
  context = browser.context;
});
afterAll(async () => {
  await browser?.close();
});

beforeEach(() => {
  root = tempDir("fixpoint-browser-");
  repo = join(root, "repo");
  env = isolatedEnv(root);
  createDemoRepo(repo);
  expect(cli("init").code).toBe(0);
  mkdirSync(join(repo, ".fixpoint/workflows"), { recursive: true });
  writeFileSync(join(repo, ".fixpoint/workflows/solo.kdl"), SOLO);
  writeFileSync(join(repo, ".fixpoint/workflows/gated.kdl"), GATED);
});
afterEach(async () => {
  for (const stop of stops.splice(0).reverse()) await stop();
  for (const p of context.pages()) await p.close();
  await context.clearCookies();
  rmSync(root, { recursive: true, force: true });
});

async function serve(): Promise<string> {
  const s = await startServe(repo, env);
  stops.push(s.stop);
  return s.url;
}

/** A page that fails the test on any dialog (alert, confirm) it did not expect. */
async function openPage(): Promise<{ page: Page; dialogs: string[] }> {
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on("dialog", (d) => {
    dialogs.push(d.message());
    void d.dismiss();
  });
  return { page, dialogs };
}

function statusOf(id: string): {
  status: string;
  final_verdict: string | null;
  current_stage: string | null;
} {
  const all = JSON.parse(cli("status", "--json", "--all").stdout) as {
    id: string;
    status: string;
    final_verdict: string | null;
    current_stage: string | null;
  }[];
  const t = all.find((x) => x.id === id);
  if (!t) throw new Error(`no ${id} in status`);
  return t;
}

describe("the dashboard in Chromium", () => {
  it("shows a stage finishing live on the morning report while a worker runs, without a reload", async () => {
    const go = join(root, "go");
    writeFileSync(
      join(repo, "impl.mjs"),
      `import { existsSync, writeFileSync } from "node:fs";
export default async (req) => {
  while (!existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 50));
  writeFileSync(req.cwd + "/x.txt", "x");
  return { text: "done" };
};
`,
    );
    writeFileSync(join(repo, "fixpoint.kdl"), 'agent "implementer" backend="scripted" script="./impl.mjs"\n');
    expect(cli("add", "a change a worker is making", "--workflow", "solo").code).toBe(0);
    const url = await serve();
    const worker = startCli(["work"], { cwd: repo, env });
    stops.push(async () => {
      if (worker.exitCode === null) worker.kill("SIGKILL");
      await exited(worker);
    });
    const { page, dialogs } = await openPage();
    await page.goto(url);
    await expect.poll(() => page.locator("#live").textContent(), { timeout: 15_000 }).toBe("live");
    await expect
      .poll(() => page.locator("#g-running").textContent(), { timeout: 20_000 })
      .toContain("a change a worker is making");
    await page.evaluate(() => {
      (globalThis as unknown as { __samePage: number }).__samePage = 1;
    });
    writeFileSync(go, "");
    await expect
      .poll(() => page.locator("#g-approved").textContent(), { timeout: 30_000 })
      .toContain("a change a worker is making");
    expect(await page.locator("#g-running").textContent()).not.toContain("a change a worker is making");
    await expect
      .poll(() => page.locator("#feed").textContent(), { timeout: 10_000 })
      .toContain("stage.finished");
    expect(await page.evaluate(() => (globalThis as unknown as { __samePage?: number }).__samePage)).toBe(1);
    expect(await exited(worker)).toBe(0);
    expect(dialogs).toEqual([]);
  });

  it("approves a waiting human stage with a note: the task is queued again in the store", async () => {
    writeFileSync(
      join(repo, "impl.mjs"),
      "export default async (req) => { (await import('node:fs')).writeFileSync(req.cwd + '/x.txt', 'x'); return { text: 'ok' }; };\n",
    );
    writeFileSync(join(repo, "fixpoint.kdl"), 'agent "implementer" backend="scripted" script="./impl.mjs"\n');
    expect(cli("add", "change that needs a sign-off", "--workflow", "gated").code).toBe(0);
    expect(cli("work").stdout).toContain("waiting for a human at stage sign_off");
    const url = await serve();
    const { page } = await openPage();
    await page.goto(url);
    await expect(page.locator("#g-needs").textContent()).resolves.toContain("waiting at sign_off");
    await page.locator("#g-needs a", { hasText: "t-1" }).click();
    await page.locator('form[action="/tasks/t-1/approve"] input[name="note"]').fill("read it, ship it");
    await page.locator('form[action="/tasks/t-1/approve"] button').click();
    await page.waitForURL(/\/tasks\/t-1\?done=/);
    expect(await page.locator(".notice").textContent()).toContain("approved at sign_off");
    expect(statusOf("t-1")).toMatchObject({ status: "queued", final_verdict: null });
    expect(cli("logs", "t-1").stdout).toMatch(/human\.approved .*reason="read it, ship it"/);
    expect(cli("work").stdout).toContain("APPROVED");
  });

  it("asks before cancelling a task: dismissed changes nothing, accepted cancels it", async () => {
    expect(cli("add", "a task to cancel").code).toBe(0);
    const url = await serve();
    const page = await context.newPage();
    const asked: string[] = [];
    let answer = false;
    page.on("dialog", (d) => {
      asked.push(d.message());
      void (answer ? d.accept() : d.dismiss());
    });
    await page.goto(`${url}tasks/t-1`);
    await page.locator('form[action="/tasks/t-1/cancel"] button').click();
    expect(asked).toEqual(["Cancel t-1? A running stage is stopped."]);
    expect(statusOf("t-1").status).toBe("queued");
    answer = true;
    await page.locator('form[action="/tasks/t-1/cancel"] button').click();
    await page.waitForURL(/\/tasks\/t-1\?done=/);
    expect(statusOf("t-1").status).toBe("cancelled");
    expect(cli("logs", "t-1").stdout).toMatch(/task\.cancelled .*by=/);
  });

  it("raises the budget of a task that stopped on it, and the task runs on to approval", async () => {
    writeFileSync(join(repo, "fixpoint.kdl"), demoConfig());
    expect(
      cli("add", "Add mean() and median() to src/stats.js, with tests", "--budget-usd", "0.005").code,
    ).toBe(0);
    cli("work");
    expect(statusOf("t-1")).toMatchObject({ status: "needs_human", final_verdict: "BUDGET_EXHAUSTED" });
    const url = await serve();
    const { page, dialogs } = await openPage();
    await page.goto(url);
    expect(await page.locator("#g-needs").textContent()).toContain("budget reached");
    await page.goto(`${url}tasks/t-1`);
    await page.locator('form[action="/tasks/t-1/limits"] input[name="budget"]').fill("50");
    await page.locator('form[action="/tasks/t-1/limits"] button').click();
    await page.waitForURL(/\/tasks\/t-1\?done=/);
    expect(await page.locator(".notice").textContent()).toContain("budget");
    expect(statusOf("t-1").status).toBe("queued");
    const worker = startCli(["work"], { cwd: repo, env });
    stops.push(async () => {
      if (worker.exitCode === null) worker.kill("SIGKILL");
      await exited(worker);
    });
    // The open task page follows the run live, to its verdict.
    await expect
      .poll(() => page.locator("#task-head").textContent(), { timeout: 60_000 })
      .toContain("APPROVED");
    expect(await exited(worker)).toBe(0);
    expect(statusOf("t-1")).toMatchObject({ status: "completed", final_verdict: "APPROVED" });
    expect(dialogs).toEqual([]);
    if (SHOTS) {
      mkdirSync(IMG, { recursive: true });
      await page.goto(`${url}tasks/t-1`);
      await page.screenshot({ path: join(IMG, "dashboard-task.png"), fullPage: false });
      await page.locator("#findings").screenshot({ path: join(IMG, "dashboard-task-findings.png") });
      await page.locator("#diff").screenshot({ path: join(IMG, "dashboard-task-diff.png") });
      await page.goto(`${url}findings`);
      await page.screenshot({ path: join(IMG, "dashboard-findings.png"), fullPage: false });
      expect(cli("add", "Document the statistics module", "--workflow", "gated").code).toBe(0);
      cli("work");
      expect(cli("add", "Port the statistics module to TypeScript").code).toBe(0);
      await page.goto(`${url}?since=7d`);
      await page.screenshot({ path: join(IMG, "dashboard-home.png"), fullPage: false });
    }
  });

  it("renders script and onerror payloads in every text field as text and runs nothing", async () => {
    writeFileSync(join(repo, "fixpoint.kdl"), demoConfig());
    expect(cli("add", `Fix it ${XSS}`, "--title", `Title ${XSS}`, "--max-cycles", "2").code).toBe(0);
    const ctx = await openContext(repo, { env });
    try {
      const now = Date.now();
      await ctx.store.updateTask(
        "t-1",
        { status: "needs_human", reason: `reason ${XSS}`, currentStage: `stage${XSS}` },
        now,
      );
      await ctx.store.saveFindings(
        "t-1",
        [
          finding("t-1", "F-1", {
            title: `finding ${XSS}`,
            body: `body ${XSS} [link](javascript:window.__pwned=3)`,
            file: `src/${XSS}.js`,
            suggestedFix: XSS,
            note: XSS,
            sources: [{ source: `review:${XSS}`, cycle: 0, author: XSS }],
            attempts: [
              { cycle: 1, status: "blocked", justification: XSS, commitSha: null, rejection: XSS, at: now },
            ],
          }),
        ],
        [{ taskId: "t-1", runId: null, type: "note", data: { text: XSS } }],
        now,
      );
    } finally {
      await ctx.close();
    }
    mkdirSync(join(repo, ".fixpoint/transcripts/t-1"), { recursive: true });
    writeFileSync(join(repo, ".fixpoint/transcripts/t-1/implement.txt"), `agent said ${XSS}\n`);
    const url = await serve();
    const { page, dialogs } = await openPage();
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    for (const path of [
      "",
      "tasks",
      "tasks/t-1",
      "findings",
      "findings?severity=P1",
      "tasks/t-1/artifacts/implement.txt",
    ]) {
      await page.goto(`${url}${path}`);
      await page.waitForLoadState("load");
      expect(
        await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned),
        path,
      ).toBeUndefined();
      expect(await page.locator("main").textContent(), path).toContain("<script>window.__pwned=1</script>");
      expect(await page.locator("main img").count(), path).toBe(0);
    }
    await page.goto(`${url}tasks/t-1`);
    await page
      .locator("a", { hasText: "link" })
      .first()
      .click({ trial: true })
      .catch(() => {});
    expect(await page.locator('a[href^="javascript:"]').count()).toBe(0);
    expect(
      await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned),
    ).toBeUndefined();
    expect(dialogs).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("a server that needs a token answers 401 without it and works once the token is given", async () => {
    const fp = await createFixpoint({ cwd: repo, env, actor: "tester", init: false });
    const server = await listen(
      createDashboard({
        api: createAppApi(fp, { actor: "tester" }),
        csrf: "csrf-token-for-this-test",
        token: "tok-0123456789abcdef",
      }),
      "127.0.0.1",
      0,
    );
    stops.push(async () => {
      await server.close();
      await fp.close();
    });
    const { page } = await openPage();
    const denied = await page.goto(server.url);
    expect(denied?.status()).toBe(401);
    expect(await page.locator("body").textContent()).toContain("access token");
    const wrong = await page.goto(`${server.url}?token=tok-guess`);
    expect(wrong?.status()).toBe(401);
    const allowed = await page.goto(`${server.url}?token=tok-0123456789abcdef`);
    expect(allowed?.status()).toBe(200);
    expect(page.url()).toBe(server.url);
    expect(await page.locator("h1").textContent()).toBe("Morning report");
    expect((await page.goto(`${server.url}findings`))?.status()).toBe(200);
  });
});
