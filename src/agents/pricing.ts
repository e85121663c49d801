import type { ModelPrice } from "../config/types.js";
import type { TokenUsage } from "../domain/types.js";

/**
 * USD per million tokens, for backends whose stream carries no cost (Codex, the HTTP APIs).
 * List prices at the time of writing; the config's `prices { … }` extends and overrides them,
 * which is also how a new or private model gets a price. Unknown models cost 0: `fixpoint doctor`
 * names them, a run warns about them, and a USD budget does not trust them (see the resolver).
 */
export const DEFAULT_PRICES: Readonly<Record<string, ModelPrice>> = Object.freeze({
  "gpt-5": { inputPerM: 1.25, outputPerM: 10, cacheReadPerM: 0.125 },
  "gpt-5-codex": { inputPerM: 1.25, outputPerM: 10, cacheReadPerM: 0.125 },
  "gpt-5-mini": { inputPerM: 0.25, outputPerM: 2, cacheReadPerM: 0.025 },
  "gpt-5-nano": { inputPerM: 0.05, outputPerM: 0.4, cacheReadPerM: 0.005 },
  "gpt-4.1": { inputPerM: 2, outputPerM: 8, cacheReadPerM: 0.5 },
  "gpt-4.1-mini": { inputPerM: 0.4, outputPerM: 1.6, cacheReadPerM: 0.1 },
  "gpt-4o": { inputPerM: 2.5, outputPerM: 10, cacheReadPerM: 1.25 },
  "gpt-4o-mini": { inputPerM: 0.15, outputPerM: 0.6, cacheReadPerM: 0.075 },
  o3: { inputPerM: 2, outputPerM: 8, cacheReadPerM: 0.5 },
  "o4-mini": { inputPerM: 1.1, outputPerM: 4.4, cacheReadPerM: 0.275 },
  "claude-opus-4": { inputPerM: 15, outputPerM: 75, cacheReadPerM: 1.5, cacheWritePerM: 18.75 },
  "claude-opus-4-5": { inputPerM: 5, outputPerM: 25, cacheReadPerM: 0.5, cacheWritePerM: 6.25 },
  "claude-sonnet-4": { inputPerM: 3, outputPerM: 15, cacheReadPerM: 0.3, cacheWritePerM: 3.75 },
  "claude-haiku-4-5": { inputPerM: 1, outputPerM: 5, cacheReadPerM: 0.1, cacheWritePerM: 1.25 },
});

/**
 * The price of `model`: an exact match first (config before defaults), then its family: the
 * longest known name the model starts with followed by `-` or `.` (`gpt-5-2025-08-07` → `gpt-5`),
 * so dated snapshots price like their family. A point release prices as its own entry when the
 * table has one (`gpt-5.5`, `gpt-5.5-2026-01-01` → `gpt-5.5`), else as its model line without the
 * point (`gpt-5.5` → `gpt-5`, `gpt-5.1-codex` → `gpt-5-codex`). A `provider/` prefix is ignored.
 */
export function priceFor(model: string, extra: Record<string, ModelPrice> = {}): ModelPrice | undefined {
  const bare = model.includes("/") ? model.slice(model.lastIndexOf("/") + 1) : model;
  for (const name of [model, bare]) {
    const exact = extra[name] ?? DEFAULT_PRICES[name];
    if (exact) return exact;
  }
  // A family entry that names the point release itself (`gpt-5.5` for `gpt-5.5-2026-01-01`) is
  // the most specific; else the model line without its point release (`gpt-5.1-codex` →
  // `gpt-5-codex`, `gpt-5.5` → `gpt-5`); else whatever family the name starts with.
  const dot = /(\d)\.\d+(?=[-.]|$)/.exec(bare);
  const family = familyOf(bare, extra);
  if (family && (!dot || family.name.length > dot.index + 1)) return family.price;
  if (dot) {
    const undotted = bare.slice(0, dot.index + 1) + bare.slice(dot.index + dot[0].length);
    const line = extra[undotted] ?? DEFAULT_PRICES[undotted] ?? familyOf(undotted, extra)?.price;
    if (line) return line;
  }
  return family?.price;
}

function familyOf(
  bare: string,
  extra: Record<string, ModelPrice>,
): { name: string; price: ModelPrice } | undefined {
  let best: { name: string; price: ModelPrice } | undefined;
  for (const table of [DEFAULT_PRICES, extra]) {
    for (const [name, price] of Object.entries(table)) {
      if (!bare.startsWith(`${name}-`) && !bare.startsWith(`${name}.`)) continue;
      // Longer names are more specific; on a tie the config (visited last) wins.
      if (!best || name.length >= best.name.length) best = { name, price };
    }
  }
  return best;
}

/** Whether fixpoint can price `model` (a backend that reports its own cost needs no price). */
export function hasPrice(model: string | undefined, extra: Record<string, ModelPrice> = {}): boolean {
  return model !== undefined && model !== "" && priceFor(model, extra) !== undefined;
}

/** Backends whose cost fixpoint computes from the price table: their stream carries none. */
export const PRICED_BY_TABLE: ReadonlySet<string> = new Set(["codex", "openai", "anthropic"]);

/** How to give a model a price, as the sentence a warning or an error ends with. */
export function priceHint(model: string): string {
  return `add \`price "${model}" input=<USD per 1M tokens> output=<USD per 1M tokens> cache-read=<…>\` to fixpoint.kdl`;
}

export function costFromUsage(
  model: string,
  usage: TokenUsage,
  extra: Record<string, ModelPrice> = {},
): number {
  const p = priceFor(model, extra);
  if (!p) return 0;
  const perToken =
    usage.input * p.inputPerM +
    usage.output * p.outputPerM +
    usage.cacheRead * (p.cacheReadPerM ?? p.inputPerM) +
    usage.cacheWrite * (p.cacheWritePerM ?? p.inputPerM);
  return perToken / 1_000_000;
}
