/**
 * The dashboard's only script and stylesheet, served from /assets (the CSP allows no inline
 * script or style). Kept as strings so `tsc` ships them in dist/ without a copy step.
 *
 * The script: live updates over server-sent events (the browser's EventSource reconnects by
 * itself and sends Last-Event-ID, so the server catches it up), refetching the page's
 * `data-live` regions when an event concerns them; confirmation of destructive forms; and the
 * retry of a page that could not read the store. It writes untrusted text with textContent only.
 */
export const DASHBOARD_JS = `"use strict";
(function () {
  var live = document.getElementById("live");
  var feed = document.getElementById("feed");
  function setLive(text, cls) { if (live) { live.textContent = text; live.className = "live " + cls; } }

  document.addEventListener("submit", function (ev) {
    var form = ev.target;
    var msg = form && form.getAttribute && form.getAttribute("data-confirm");
    if (msg && !window.confirm(msg)) ev.preventDefault();
  });

  var retry = document.querySelector("[data-retry]");
  if (retry) setTimeout(function () { location.reload(); }, Number(retry.getAttribute("data-retry")) || 2000);

  var pending = null;
  var dirty = {};
  function refresh() {
    pending = null;
    var changed = dirty;
    dirty = {};
    document.querySelectorAll("[data-live]").forEach(function (el) {
      var task = el.getAttribute("data-task");
      if (task && !changed[task]) return;
      fetch(el.getAttribute("data-live"), { headers: { "X-Fixpoint-Fragment": "1" }, credentials: "same-origin" })
        .then(function (r) { return r.ok ? r.text() : null; })
        .then(function (text) {
          if (text === null) return;
          var doc = new DOMParser().parseFromString(text, "text/html");
          var fresh = doc.getElementById(el.id);
          if (fresh) el.replaceWith(document.importNode(fresh, true));
        })
        .catch(function () { /* the region keeps its content; the next event refetches it */ });
    });
  }
  function schedule(taskId) {
    dirty[taskId] = true;
    if (pending === null) pending = setTimeout(refresh, 250);
  }
  function addFeed(e) {
    if (!feed) return;
    var li = document.createElement("li");
    var time = document.createElement("time");
    time.textContent = new Date(e.ts).toISOString().slice(11, 19);
    var a = document.createElement("a");
    a.href = "/tasks/" + encodeURIComponent(e.taskId);
    a.textContent = e.taskId;
    var code = document.createElement("code");
    code.textContent = e.type;
    li.append(time, " ", a, " ", code, " ", String(e.summary || ""));
    feed.prepend(li);
    while (feed.children.length > 50) feed.lastElementChild.remove();
  }

  if (typeof EventSource === "undefined") return;
  var after = document.body.getAttribute("data-after");
  var es = new EventSource("/events" + (after ? "?after=" + encodeURIComponent(after) : ""));
  es.onopen = function () { setLive("live", "on"); };
  es.onerror = function () { setLive("reconnecting…", "off"); };
  es.addEventListener("task", function (m) {
    var e;
    try { e = JSON.parse(m.data); } catch (err) { return; }
    addFeed(e);
    schedule(e.taskId);
  });
  var banner = null;
  es.addEventListener("store-error", function (m) {
    setLive("store unavailable, retrying", "off");
    var why = "";
    try { why = JSON.parse(m.data).message || ""; } catch (err) { why = ""; }
    if (!banner) {
      banner = document.createElement("div");
      banner.className = "banner";
      banner.setAttribute("role", "alert");
      document.body.insertBefore(banner, document.querySelector("main"));
    }
    banner.textContent = "The store cannot be read right now (" + why + "). Retrying…";
  });
  es.addEventListener("task", function () {
    if (banner) { banner.remove(); banner = null; setLive("live", "on"); }
  });
  es.addEventListener("store-ok", function () {
    if (banner) { banner.remove(); banner = null; setLive("live", "on"); }
  });
})();
`;

export const DASHBOARD_CSS = `:root { color-scheme: light dark; --fg: #1d2127; --bg: #fbfbfc; --muted: #6a717c; --line: #dde1e6;
  --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --info: #0969da; --chip: #eef1f4; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e8eb; --bg: #15181c; --muted: #98a0ab; --line: #30363d; --chip: #242a31; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header.top { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1.2rem; border-bottom: 1px solid var(--line); }
header.top nav a { margin-right: 1rem; }
.brand { font-weight: 700; text-decoration: none; color: var(--fg); }
a { color: var(--info); }
main { padding: 1rem 1.2rem 3rem; max-width: 1400px; }
h1 { font-size: 1.4rem; margin: .2rem 0 1rem; } h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; } h3 { font-size: 1rem; }
.live { margin-left: auto; font-size: .8rem; padding: .1rem .5rem; border-radius: 1rem; background: var(--chip); color: var(--muted); }
.live.on { color: var(--ok); } .live.off { color: var(--warn); }
.notice { padding: .4rem .8rem; border-left: 3px solid var(--ok); background: var(--chip); }
.banner { background: #fff3cd; color: #5c4400; padding: .6rem 1.2rem; border-bottom: 1px solid #e6cf7a; }
.counts { display: flex; gap: .8rem; list-style: none; padding: 0; flex-wrap: wrap; }
.count a { display: block; padding: .5rem .9rem; border: 1px solid var(--line); border-radius: .4rem; text-decoration: none; color: var(--fg); }
.count strong { font-size: 1.3rem; margin-right: .3rem; }
.c-needs strong { color: var(--warn); } .c-failed strong { color: var(--bad); } .c-approved strong { color: var(--ok); } .c-running strong { color: var(--info); }
.totals { color: var(--muted); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .3rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); font-size: .85rem; }
td.reason { max-width: 40ch; } td.title { max-width: 40ch; }
.badge { display: inline-block; padding: 0 .4rem; border-radius: .3rem; background: var(--chip); font-size: .8rem; }
.s-completed { color: var(--ok); } .s-failed, .s-cancelled { color: var(--bad); } .s-needs_human { color: var(--warn); } .s-running { color: var(--info); }
.empty { color: var(--muted); }
.n { color: var(--muted); font-weight: 400; }
.reason { color: var(--muted); }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .1rem 1rem; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; }
.actions { display: flex; flex-wrap: wrap; gap: .6rem; align-items: end; }
.actions h2 { width: 100%; }
form.action { display: flex; gap: .4rem; align-items: end; padding: .4rem .6rem; border: 1px solid var(--line); border-radius: .4rem; }
form.action.inline { border: 0; padding: 0; margin-top: .3rem; }
label { display: inline-flex; flex-direction: column; font-size: .8rem; color: var(--muted); gap: .1rem; }
input, select, button { font: inherit; }
button { cursor: pointer; padding: .25rem .7rem; border-radius: .3rem; border: 1px solid var(--line); background: var(--chip); color: var(--fg); }
button.danger { color: var(--bad); }
article.finding { border: 1px solid var(--line); border-left-width: 4px; border-radius: .3rem; padding: .5rem .8rem; margin: .5rem 0; }
.sev-P0 { border-left-color: var(--bad); } .sev-P1 { border-left-color: #e16f24; } .sev-P2 { border-left-color: var(--warn); } .sev-P3 { border-left-color: var(--muted); }
.ftitle { font-weight: 600; } .loc { margin-left: .5rem; color: var(--muted); }
ul.history { color: var(--muted); font-size: .85rem; margin: .3rem 0; }
pre { overflow-x: auto; }
pre.diff, pre.transcript { font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; border: 1px solid var(--line); border-radius: .3rem; padding: .4rem 0; }
pre.transcript { padding: .6rem; white-space: pre-wrap; }
.l { display: block; padding: 0 .6rem; white-space: pre; }
.l .ln { display: inline-block; width: 4ch; color: var(--muted); user-select: none; margin-right: .6rem; text-align: right; }
.l.add { background: rgba(26, 127, 55, .12); } .l.del { background: rgba(207, 34, 46, .12); } .l.hunk { color: var(--info); } .l.meta { color: var(--muted); }
a.at-line { display: block; margin: .1rem 0 .1rem 5ch; padding: .1rem .5rem; border-left-width: 3px; border-left-style: solid; background: var(--chip); white-space: normal; text-decoration: none; color: var(--fg); }
.md p { margin: .3rem 0; } .md pre { background: var(--chip); padding: .4rem; }
ol.events, ol.feed-list { list-style: none; padding: 0; font-size: .85rem; }
ol.events li, ol.feed-list li { padding: .1rem 0; border-bottom: 1px dotted var(--line); }
time { color: var(--muted); margin-right: .4rem; }
.pager { margin: .6rem 0; }
form.filters, form.since { display: flex; gap: .6rem; align-items: end; margin-bottom: 1rem; }
`;
