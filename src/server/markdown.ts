import { micromark } from "micromark";
import { redactSecrets } from "../util/redact.js";
import { type Html, trustedHtml } from "./html.js";

/**
 * Renders untrusted markdown (reviews, finding bodies, PR comments) to HTML. micromark's defaults
 * are the sanitiser: raw HTML in the text is escaped (`allowDangerousHtml` stays off) and link
 * protocols other than http(s), mailto and relative ones are dropped (`allowDangerousProtocol`
 * stays off). Secrets are redacted before rendering.
 */
export function renderMarkdown(text: string, env: NodeJS.ProcessEnv = process.env): Html {
  return trustedHtml(micromark(redactSecrets(text, env)));
}
