import { type Html, html, type Part } from "../html.js";

export interface PageContext {
  /** The CSRF token every form carries. */
  csrf: string;
  now: number;
  /** The newest event id when the page was rendered (the live feed starts after it). */
  after?: number;
}

/** The frame of every page: navigation, the live-connection badge, the banner slot. */
/** `after`: the newest event id when the page was rendered; the live feed starts there. */
export function layout(title: string, body: Part, opts: { banner?: Html; after?: number } = {}): Html {
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · fixpoint</title>
<link rel="stylesheet" href="/assets/dashboard.css">
<script src="/assets/dashboard.js" defer></script>
</head>
<body${opts.after !== undefined ? html` data-after="${opts.after}"` : ""}>
<header class="top">
<a class="brand" href="/">fixpoint</a>
<nav><a href="/">Morning report</a><a href="/tasks">Tasks</a><a href="/findings">Findings</a></nav>
<span id="live" class="live" title="live updates">offline</span>
</header>
${opts.banner ?? ""}
<main>
${body}
</main>
</body>
</html>
`;
}

/** A hidden CSRF field for a form. */
export function csrfField(ctx: PageContext): Html {
  return html`<input type="hidden" name="_csrf" value="${ctx.csrf}">`;
}

/** The banner shown when the store cannot be read; dashboard.js retries the page while it shows. */
export function storeBanner(reason: string): Html {
  return html`<div class="banner" role="alert" data-retry="2000">The store cannot be read right now (${reason}). Retrying every 2 seconds…</div>`;
}
