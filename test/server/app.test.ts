/**
 * The dashboard over HTTP without a browser (Hono's app.request) on a real SQLite store in a
 * real git repository: escaping, CSP, CSRF, the access token, bad input, actions recorded with
 * who and when, the store banner, and the live feed's catch-up from Last-Event-ID.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FixpointError } from "../../src/errors.js";
import type { DashboardApi } from "../../src/server/api.js";
import { TIMELINE_SHOWN } from "../../src/server/pages/task.js";
import { finding, stage } from "../store/samples.js";
import { CSRF, dashboard, form, openHarness, type ServerHarness, task } from "./harness.js";

const XSS_TITLE = `<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">`;

let h: ServerHarness;
beforeEach(async () => {
  h = await openHarness();
});
afterEach(async () => {
  await h.cleanup();
});

async function text(res: Response): Promise<string> {
  return await res.text();
}

describe("pages", () => {
  it("renders untrusted task and finding text as text on every page, markdown without raw HTML", async () => {
    const t = await h.store.createTask(task(h, { title: XSS_TITLE, prompt: `hi ${XSS_TITLE}` }), Date.now());
    await h.store.saveFindings(
      t.id,
      [
        finding(t.id, "F-1", {
          title: XSS_TITLE,
          body: `**bold** ${XSS_TITLE} [x](javascript:alert(1))`,
          file: `src/<b>x</b>.ts`,
          note: XSS_TITLE,
          attempts: [{ cycle: 1, status: "blocked", justification: XSS_TITLE, commitSha: null, at: 1 }],
        }),
      ],
      [],
      Date.now(),
    );
    const app = dashboard(h);
    for (const path of ["/", "/tasks", `/tasks/${t.id}`, "/findings", "/findings?severity=P1"]) {
      const body = await text(await app.request(path));
      expect(body, path).not.toContain("<script>window");
      expect(body, path).not.toContain("<img src=x");
      expect(body, path).not.toContain("javascript:");
      expect(body, path).toContain("&lt;script&gt;window.__pwned=1&lt;/script&gt;");
      // The only scripts are the dashboard's own file.
      expect(body.match(/<script[^>]*>/g), path).toEqual(['<script src="/assets/dashboard.js" defer>']);
    }
    const page = await text(await app.request(`/tasks/${t.id}`));
    expect(page).toContain("<strong>bold</strong>");
    expect(page).toContain("src/&lt;b&gt;x&lt;/b&gt;.ts");
  });

  it("redacts on every page a secret the environment holds now, though the store kept the text before it was one", async () => {
    const value = "plain-7c4e1a9b2d5f8e3a";
    const t = await h.store.createTask(
      task(h, { title: `uses ${value} here`, prompt: `p ${value}` }),
      Date.now(),
    );
    await h.store.saveFindings(
      t.id,
      [finding(t.id, "F-1", { title: `leaks ${value}`, body: `body ${value}` })],
      [],
      1,
    );
    const app = dashboard(h);
    process.env.FIXPOINT_PAGE_TEST_TOKEN = value;
    try {
      for (const path of ["/", "/tasks", `/tasks/${t.id}`, "/findings"]) {
        const body = await text(await app.request(path));
        expect(body, path).not.toContain(value);
        expect(body, path).toContain("[REDACTED]");
      }
    } finally {
      delete process.env.FIXPOINT_PAGE_TEST_TOKEN;
    }
    // Read again once it is no secret: the pages read the environment per request.
    expect(await text(await app.request(`/tasks/${t.id}`))).toContain(value);
  });

  it("shows a long run's last stages and first artifacts, and all of them when asked", async () => {
    const t = await h.store.createTask(task(h), 1);
    const first = await h.store.createRun(t.id, "start", {}, 2);
    const second = await h.store.createRun(t.id, "resume", {}, 3);
    const total = TIMELINE_SHOWN + 40;
    for (let i = 0; i < total; i++) {
      const runId = i < 30 ? first.id : second.id;
      const s = stage(t.id, runId, { stageId: `s${String(i).padStart(4, "0")}`, summary: null });
      await h.store.commitStage({
        taskId: t.id,
        runId,
        stage: s,
        checkpoint: null,
        findings: [],
        events: [],
        task: null,
        now: 4,
      });
    }
    const dir = join(h.dir, "transcripts", t.id);
    mkdirSync(dir, { recursive: true });
    for (let i = 0; i < total; i++) writeFileSync(join(dir, `r1-s${String(i).padStart(4, "0")}.log`), "x");
    const rows = (body: string) =>
      [...body.matchAll(/<tr class="o-success"><td>(s\d{4})<\/td>/g)].map((m) => m[1]);
    const links = (body: string) => [...body.matchAll(/artifacts\/(r1-s\d{4}\.log)"/g)].map((m) => m[1]);
    const stageIds = Array.from({ length: total }, (_, i) => `s${String(i).padStart(4, "0")}`);
    const app = dashboard(h);

    const page = await text(await app.request(`/tasks/${t.id}`));
    expect(rows(page)).toEqual(stageIds.slice(-TIMELINE_SHOWN));
    expect(page).toContain(`The last ${TIMELINE_SHOWN} of ${total} stages (1 earlier run not shown)`);
    expect(page).not.toContain(`<h3>Run ${first.id} `);
    expect(page).toContain(`<h3>Run ${second.id} `);
    expect(links(page)).toEqual(stageIds.slice(0, TIMELINE_SHOWN).map((s) => `r1-${s}.log`));
    expect(page).toContain("40 more.");
    // The live header is as short as the page it refreshes.
    const head = await text(await app.request(`/tasks/${t.id}?fragment=head`));
    expect(rows(head)).toEqual(stageIds.slice(-TIMELINE_SHOWN));

    const whole = await text(await app.request(`/tasks/${t.id}?all=1`));
    expect(rows(whole)).toEqual(stageIds);
    expect(links(whole)).toHaveLength(total);
    expect(whole).not.toContain("Show every stage");
    expect(whole).toContain("?fragment=head&amp;all=1");
    expect(rows(await text(await app.request(`/tasks/${t.id}?fragment=head&all=1`)))).toEqual(stageIds);
  });

  it("sends a strict CSP and no-sniff on pages, assets and errors", async () => {
    const app = dashboard(h);
    for (const path of ["/", "/assets/dashboard.js", "/tasks/t-404", "/findings?status=nope"]) {
      const res = await app.request(path);
      const csp = res.headers.get("content-security-policy") ?? "";
      expect(csp, path).toContain("default-src 'self'");
      expect(csp, path).toContain("script-src 'self'");
      expect(csp, path).not.toContain("unsafe-inline");
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
    }
  });

  it("answers an unknown task with a 404 page that links home, bad parameters with 400 and the reason", async () => {
    const app = dashboard(h);
    const missing = await app.request("/tasks/t-404");
    expect(missing.status).toBe(404);
    const body = await text(missing);
    expect(body).toContain("no task &#96;t-404&#96;");
    expect(body).toContain('<a href="/">');
    const bad = await app.request("/?since=yesterday-ish");
    expect(bad.status).toBe(400);
    expect(await text(bad)).toContain("since: &#96;yesterday-ish&#96; is not a duration");
    expect((await app.request("/findings?severity=P9")).status).toBe(400);
    expect((await app.request("/nowhere")).status).toBe(404);
  });

  it("groups the morning report by outcome with reasons, cycles and cost, and pages the task list", async () => {
    const s = h.store;
    const now = Date.now();
    const a = await s.createTask(task(h, { title: "waits for a person" }), now);
    await s.updateTask(a.id, { status: "needs_human", currentStage: "sign_off", reason: "approve it" }, now);
    const b = await s.createTask(task(h, { title: "ran out of money" }), now);
    await s.updateTask(
      b.id,
      { status: "needs_human", finalVerdict: "BUDGET_EXHAUSTED", reason: "spent $1.00 of $1.00" },
      now,
    );
    const c = await s.createTask(task(h, { title: "broke" }), now);
    await s.updateTask(c.id, { status: "failed", reason: "agent crashed" }, now);
    for (let i = 0; i < 60; i++) await s.createTask(task(h, { title: `queued ${i}` }), now);
    const app = dashboard(h);
    const home = await text(await app.request("/"));
    expect(home).toMatch(/<strong>2<\/strong> needs you/);
    expect(home).toMatch(/<strong>1<\/strong> failed/);
    expect(home).toMatch(/<strong>60<\/strong> queued/);
    expect(home).toContain("<em>waiting at sign_off</em>");
    expect(home).toContain("<em>budget reached</em> spent $1.00 of $1.00");
    expect(home).toContain("All 60 →");
    const first = await text(await app.request("/tasks?status=queued"));
    expect(first).toContain("queued 59");
    expect(first).not.toContain("queued 9<");
    const next = first.match(/href="(\/tasks\?[^"]*before=\d+)"/)?.[1]?.replaceAll("&amp;", "&");
    expect(next).toBeDefined();
    const second = await text(await app.request(next ?? ""));
    expect(second).toContain("queued 9<");
    expect(second).not.toContain("queued 59");
  });

  it("shows a banner that retries when the store cannot be read", async () => {
    const locked: DashboardApi = {
      ...h.api,
      countTasks: () =>
        Promise.reject(new FixpointError("store_locked", "the database is locked by another process")),
    };
    const res = await dashboard(h, { api: locked }).request("/");
    expect(res.status).toBe(503);
    const body = await text(res);
    expect(body).toContain('data-retry="2000"');
    expect(body).toContain("the database is locked by another process");
  });
});

describe("artifacts", () => {
  it("lists and reads the transcripts and review files only the store has (a running task's, another clone's)", async () => {
    const t = await h.store.createTask(task(h), Date.now());
    const transcript = `## prompt\nimplement ${"the greeting ".repeat(200)}\n## stdout\ndone\n`;
    await h.store.saveArtifact(
      { taskId: t.id, kind: "transcript", name: "r1-implement-c0-v1-a1.log", text: transcript },
      Date.now(),
    );
    await h.store.saveArtifact(
      { taskId: t.id, kind: "review", name: `${t.id}-r1-review-1.md`, text: "# Review 1\nAPPROVED\n" },
      Date.now(),
    );
    const app = dashboard(h);
    const page = await text(await app.request(`/tasks/${t.id}`));
    expect(page).toContain("r1-implement-c0-v1-a1.log");
    expect(page).toContain(`${t.id}-r1-review-1.md`);
    const read = await text(await app.request(`/tasks/${t.id}/artifacts/r1-implement-c0-v1-a1.log`));
    expect(read).toContain("## stdout");
    expect(readFileSync(join(h.dir, "transcripts", t.id, "r1-implement-c0-v1-a1.log"), "utf8")).toBe(
      transcript,
    );
    expect(statSync(join(h.dir, "transcripts", t.id, "r1-implement-c0-v1-a1.log")).mode & 0o777).toBe(0o600);
  });

  it("reads a stored transcript asked for by name before any listing wrote it", async () => {
    const t = await h.store.createTask(task(h), Date.now());
    await h.store.saveArtifact(
      { taskId: t.id, kind: "transcript", name: "r2-review-c1-v1-a1.log", text: "## reply\nlooks fine\n" },
      Date.now(),
    );
    const read = await h.api.readArtifact(t.id, "r2-review-c1-v1-a1.log", 0, 1024);
    expect(read.text).toBe("## reply\nlooks fine\n");
    await expect(h.api.readArtifact(t.id, "r9-none.log", 0, 1024)).rejects.toThrow(/has no artifact/);
  });

  it("reads a review file by its name, and never another task's file or a path", async () => {
    const t = await h.store.createTask(task(h), Date.now());
    const other = await h.store.createTask(task(h), Date.now());
    for (const id of [t.id, other.id]) {
      await h.store.saveArtifact(
        { taskId: id, kind: "review", name: `${id}-r1-review-0.md`, text: `# Review of ${id}\n` },
        Date.now(),
      );
      await text(await dashboard(h).request(`/tasks/${id}`));
    }
    expect((await h.api.readArtifact(t.id, `${t.id}-r1-review-0.md`, 0, 1024)).text).toBe(
      `# Review of ${t.id}\n`,
    );
    for (const name of [
      `${other.id}-r1-review-0.md`,
      `../reviews/${t.id}-r1-review-0.md`,
      `${t.id}-r1-review-9.md`,
    ])
      await expect(h.api.readArtifact(t.id, name, 0, 1024)).rejects.toThrow(/has no artifact/);
  });
});

describe("actions", () => {
  it("refuse a POST without the CSRF token or from another origin, and change nothing", async () => {
    const t = await h.store.createTask(task(h), Date.now());
    const app = dashboard(h);
    expect((await app.request(`/tasks/${t.id}/cancel`, form({}))).status).toBe(403);
    expect((await app.request(`/tasks/${t.id}/cancel`, form({ _csrf: "guess" }))).status).toBe(403);
    const cross = form({ _csrf: CSRF });
    cross.headers.Origin = "http://evil.example";
    expect((await app.request(`/tasks/${t.id}/cancel`, cross)).status).toBe(403);
    expect((await h.store.getTask(t.id))?.status).toBe("queued");
    expect((await app.request(`/tasks/${t.id}/cancel`)).status).toBe(404);
  });

  it("cancel with the token: the task is cancelled and the event says who", async () => {
    const t = await h.store.createTask(task(h), Date.now());
    const res = await dashboard(h).request(`/tasks/${t.id}/cancel`, form({ _csrf: CSRF }));
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toMatch(new RegExp(`^/tasks/${t.id}\\?done=`));
    expect((await h.store.getTask(t.id))?.status).toBe("cancelled");
    const events = await h.store.listEvents(t.id);
    expect(events.at(-1)).toMatchObject({ type: "task.cancelled", data: { by: "tester (dashboard)" } });
  });

  it("approve a waiting human stage with a note: queued again, marker and event recorded", async () => {
    const s = h.store;
    const t = await s.createTask(task(h), Date.now());
    await s.updateTask(
      t.id,
      { status: "needs_human", currentStage: "sign_off", reason: "waiting" },
      Date.now(),
    );
    const res = await dashboard(h).request(
      `/tasks/${t.id}/approve`,
      form({ _csrf: CSRF, note: "looks right" }),
    );
    expect(res.status).toBe(303);
    expect(await s.getTask(t.id)).toMatchObject({ status: "queued", reason: null });
    expect(await s.getMarker(`human:${t.id}:sign_off`)).toMatchObject({
      decision: "approved",
      reason: "looks right",
    });
    expect((await s.listEvents(t.id)).at(-1)).toMatchObject({
      type: "human.approved",
      data: { stage: "sign_off", by: "tester (dashboard)", reason: "looks right" },
    });
  });

  it("answer malformed or impossible actions with 400 and the reason", async () => {
    const t = await h.store.createTask(task(h), Date.now());
    const app = dashboard(h);
    const cases: [string, Record<string, string>, string][] = [
      ["limits", { budget: "lots" }, "budget: `lots` is not an amount"],
      ["limits", {}, "give a budget in USD or a number of max cycles"],
      ["verdict", { verdict: "GREAT" }, "verdict: `GREAT` is not one of"],
      ["reject", { note: "  " }, "a reason to reject is required"],
      ["approve", {}, "is not waiting for a human"],
      ["explode", {}, "unknown action `explode`"],
      ["findings/F-9/defer", { justification: "later" }, "has no finding `F-9`"],
      ["findings/F-9/defer", {}, "a justification is required"],
    ];
    for (const [action, fields, reason] of cases) {
      const res = await app.request(`/tasks/${t.id}/${action}`, form({ _csrf: CSRF, ...fields }));
      const body = await text(res);
      expect([action, res.status]).toEqual([
        action,
        action.includes("F-9") && fields.justification ? 404 : 400,
      ]);
      expect(body).toContain(reason.replaceAll("`", "&#96;"));
    }
    const json = await app.request(`/tasks/${t.id}/limits`, {
      ...form({ _csrf: CSRF, budget: "-1" }),
      headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
    });
    expect(json.status).toBe(400);
    expect(await json.json()).toMatchObject({ error: { code: "usage" } });
    expect((await h.store.getTask(t.id))?.budget).toEqual({});
  });

  it("defer and reopen a finding with a justification", async () => {
    const s = h.store;
    const t = await s.createTask(task(h), Date.now());
    await s.saveFindings(t.id, [finding(t.id, "F-1")], [], Date.now());
    const app = dashboard(h);
    await app.request(
      `/tasks/${t.id}/findings/F-1/defer`,
      form({ _csrf: CSRF, justification: "next sprint" }),
    );
    expect((await s.listFindings(t.id))[0]).toMatchObject({ status: "deferred", note: "next sprint" });
    await app.request(
      `/tasks/${t.id}/findings/F-1/reopen`,
      form({ _csrf: CSRF, justification: "needed now" }),
    );
    expect((await s.listFindings(t.id))[0]).toMatchObject({ status: "open", timesReopened: 1 });
    expect((await s.listEvents(t.id)).map((e) => [e.type, e.data.by, e.data.justification])).toEqual([
      ["finding.deferred", "tester (dashboard)", "next sprint"],
      ["finding.reopened", "tester (dashboard)", "needed now"],
    ]);
  });

  it("resume with feedback: the person's words become a blocking finding and the task is queued", async () => {
    const t = await h.store.createTask(task(h), Date.now());
    await h.store.updateTask(t.id, { status: "failed", reason: "agent crashed" }, Date.now());
    const res = await dashboard(h).request(
      `/tasks/${t.id}/resume`,
      form({ _csrf: CSRF, feedback: "use the <b>existing</b> helper" }),
    );
    expect(res.status).toBe(303);
    expect((await h.store.getTask(t.id))?.status).toBe("queued");
    const [f] = await h.store.listFindings(t.id);
    expect(f).toMatchObject({ status: "open", body: "use the <b>existing</b> helper" });
    expect(f?.title).toContain("Feedback from tester (dashboard)");
    const page = await (await dashboard(h).request(`/tasks/${t.id}`)).text();
    expect(page).toContain("use the &lt;b&gt;existing&lt;/b&gt; helper");
  });

  it("raise the budget and max cycles of a stopped task", async () => {
    const s = h.store;
    const t = await s.createTask(task(h, { budget: { usd: 1 } }), Date.now());
    await s.updateTask(t.id, { status: "needs_human", finalVerdict: "BUDGET_EXHAUSTED" }, Date.now());
    const res = await dashboard(h).request(
      `/tasks/${t.id}/limits`,
      form({ _csrf: CSRF, budget: "5", maxCycles: "6" }),
    );
    expect(res.status).toBe(303);
    expect(await s.getTask(t.id)).toMatchObject({ budget: { usd: 5 }, maxCycles: 6 });
    expect((await s.listEvents(t.id)).at(-1)).toMatchObject({
      type: "task.edited",
      data: { budget: [{ usd: 1 }, { usd: 5 }], maxCycles: [3, 6], by: "tester (dashboard)" },
    });
  });
});

describe("access", () => {
  it("a token-guarded server answers 401 without it, and takes a bearer header or a first-visit ?token= cookie", async () => {
    const app = dashboard(h, { token: "s3cret-token-abcdef" });
    expect((await app.request("/")).status).toBe(401);
    expect((await app.request("/events")).status).toBe(401);
    expect((await app.request("/?token=wrong")).status).toBe(401);
    expect(
      (await app.request("/", { headers: { Authorization: "Bearer s3cret-token-abcdef" } })).status,
    ).toBe(200);
    const first = await app.request("/tasks?token=s3cret-token-abcdef&status=queued");
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/tasks?status=queued");
    const cookie = (first.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
    expect(first.headers.get("set-cookie")).toMatch(/HttpOnly/i);
    expect((await app.request("/tasks", { headers: { Cookie: cookie } })).status).toBe(200);
  });

  it("a loopback server refuses Host names that are not loopback (DNS rebinding)", async () => {
    const app = dashboard(h, { loopbackOnly: true });
    expect((await app.request("http://127.0.0.1:7420/")).status).toBe(200);
    expect((await app.request("http://localhost:7420/")).status).toBe(200);
    expect((await app.request("http://attacker.example:7420/")).status).toBe(421);
  });
});

describe("live feed", () => {
  it("streams events after Last-Event-ID, so a reconnect catches up", async () => {
    const s = h.store;
    const t = await s.createTask(task(h), Date.now());
    await s.appendEvents(
      ["stage.started", "stage.finished", "task.finished"].map((type) => ({
        taskId: t.id,
        runId: null,
        type,
        data: { stage: "implement" },
      })),
      Date.now(),
    );
    const [first] = await s.listEvents(t.id);
    const res = await dashboard(h).request("/events", { headers: { "Last-Event-ID": String(first?.id) } });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const reader = res.body?.getReader();
    let got = "";
    const decoder = new TextDecoder();
    while (reader && !got.includes("task.finished")) {
      const { value, done } = await reader.read();
      if (done) break;
      got += decoder.decode(value);
    }
    await reader?.cancel();
    expect(got).not.toContain('"type":"stage.started"');
    expect(got).toContain(`"id":${(first?.id ?? 0) + 1},`);
    expect(got).toContain(`\nid: ${(first?.id ?? 0) + 1}\n`);
    expect(got).toContain('"type":"stage.finished"');
    expect(got).toContain(`"taskId":"${t.id}"`);
  });

  it("says when the store cannot be read, keeps retrying, and says when it can again", async () => {
    let fail = 2;
    const flaky: DashboardApi = {
      ...h.api,
      events: (after, limit) =>
        fail-- > 0
          ? Promise.reject(new FixpointError("store_locked", "database is locked"))
          : h.api.events(after, limit),
    };
    const res = await dashboard(h, { api: flaky }).request("/events?after=0");
    const reader = res.body?.getReader();
    let got = "";
    const decoder = new TextDecoder();
    while (reader && !got.includes("store-ok")) {
      const { value, done } = await reader.read();
      if (done) break;
      got += decoder.decode(value);
    }
    await reader?.cancel();
    expect(got.match(/event: store-error/g)).toHaveLength(1);
    expect(got).toContain("database is locked");
    expect(got).toContain("event: store-ok");
  });
});
