import { type Html, html } from "../html.js";
import { layout, storeBanner } from "./layout.js";

export function notFoundPage(what: string): Html {
  return layout(
    "Not found",
    html`<h1>Not found</h1><p class="reason">${what}</p><p><a href="/">Back to the morning report</a></p>`,
  );
}

export function badRequestPage(reason: string): Html {
  return layout(
    "Bad request",
    html`<h1>That request cannot be carried out</h1><p class="reason">${reason}</p><p><a href="/">Back to the morning report</a></p>`,
  );
}

/** A page whose data could not be read: the banner says why and dashboard.js reloads it. */
export function storeErrorPage(reason: string): Html {
  return layout(
    "Store unavailable",
    html`<h1>Waiting for the store</h1><p class="empty">This page shows as soon as the store can be read again.</p>`,
    {
      banner: storeBanner(reason),
    },
  );
}
