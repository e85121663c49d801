import { REPLY_MARKER } from "./render.js";

/**
 * fixpoint recognises what it wrote by its hidden markers, whatever login the token belongs to:
 * its thread replies end with `<!-- fixpoint:reply -->`; PR bodies, issues and notices carry
 * `<!-- fixpoint:… -->` markers too. Its own text is never feedback and never "another author".
 */
export function isFixpointReply(body: string): boolean {
  return body.includes(REPLY_MARKER);
}

export function isFixpointText(body: string): boolean {
  return body.includes("<!-- fixpoint:");
}
