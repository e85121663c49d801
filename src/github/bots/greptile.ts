import { parseBadged } from "./badge.js";
import { scaled } from "./scale.js";
import { type BotAdapter, type BotComment, type BotFinding, byLogin } from "./types.js";

const LOGINS = ["greptile-apps", "greptile-apps-staging", "greptileai"];

/** `<img alt="P1" src="https://greptile-static-assets…/badges/p1.svg">`. */
function level(img: { alt: string; src: string }): string | null {
  return /^\s*(P[0-3])\s*$/i.exec(img.alt)?.[1] ?? /\/badges\/(p[0-3])\.svg/i.exec(img.src)?.[1] ?? null;
}

/** Greptile's older form: `**logic:** …`, `**style:** …`, `**syntax:** …`. */
const OLD_TAG = /^\s*\*\*(logic|style|syntax)\s*(?::\s*)?\*\*\s*(?::\s*)?/i;

/** This bot's comment as a clean finding (null when it carries none). Never throws. */
export function parse(comment: BotComment): BotFinding | null {
  const old = OLD_TAG.exec(comment.body);
  const body = old ? comment.body.slice(old[0].length) : comment.body;
  const r = parseBadged(body, level);
  if (!r) return null;
  const word = r.word ?? old?.[1];
  const severity = scaled("greptile", word);
  const category = word?.toLowerCase() === "style" ? "style" : "correctness";
  return { ...r.found, severity, category, ...(severity === null ? { unrecognised: true } : {}) };
}

export const greptile: BotAdapter = {
  name: "greptile",
  logins: LOGINS,
  detect: (c) =>
    byLogin(c, LOGINS) ||
    /greptile-static-assets[^"'\s]{0,200}\/badges\/p[0-3]\.svg/i.test(c.body.slice(0, 2000)),
  parse,
};

/** Whether greptile wrote `comment` (its login, or a marker only it writes). */
export function detect(comment: BotComment): boolean {
  return greptile.detect(comment);
}
