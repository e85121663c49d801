/**
 * A provider's prompt cache, as the fake model server keeps it (issue 16). Real semantics, on a
 * fake clock of tokens (4 characters make a token):
 *
 * - Anthropic: entries are written only at `cache_control` breakpoints (system or content
 *   blocks), for the exact prefix up to that block; a request reads the longest prefix with an
 *   entry at one of its breakpoints or at the block boundaries up to 20 blocks before one. What
 *   lies between the read and the last breakpoint is written (and billed as a write); the rest is
 *   plain input. Prefixes under `minTokens` are never cached.
 * - OpenAI: automatic; a prompt of `minTokens` or more reads the longest prefix it shares with an
 *   earlier prompt of the same routing partition (its `prompt_cache_key`), in steps of 128 tokens.
 * - Both: an entry becomes readable only once the response of the request that wrote it has
 *   begun (`begin()`), so two requests sent at the same moment both miss.
 */
export interface CacheCharge {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  /** The response has begun: what this request wrote is readable from now on. */
  begin(): void;
}

export interface CacheBlock {
  text: string;
  breakpoint: boolean;
}

export interface FakePromptCache {
  anthropic(model: string, blocks: CacheBlock[]): CacheCharge;
  openai(model: string, key: string, prompt: string): CacheCharge;
  /** Every charge in arrival order. */
  readonly charges: { api: "anthropic" | "openai"; input: number; cacheRead: number; cacheWrite: number }[];
}

export const tokensOf = (chars: number): number => Math.ceil(chars / 4);

export function createFakePromptCache(
  opts: { minTokens?: number; lookbackBlocks?: number } = {},
): FakePromptCache {
  const minTokens = opts.minTokens ?? 1024;
  const lookback = opts.lookbackBlocks ?? 20;
  /** Anthropic entries by model + exact prefix; `readable` flips on `begin()`. */
  const entries = new Map<string, { readable: boolean }>();
  /** OpenAI prompts whose response has begun, by model + partition. */
  const seen = new Map<string, string[]>();
  const charges: FakePromptCache["charges"] = [];

  return {
    charges,
    anthropic(model, blocks) {
      const cum: number[] = [];
      let total = 0;
      const keys: string[] = [];
      let prefix = "";
      for (const b of blocks) {
        total += tokensOf(b.text.length);
        cum.push(total);
        prefix += `${b.text}\u0000`;
        keys.push(`${model}\u0001${prefix}`);
      }
      const breaks = blocks.flatMap((b, i) => (b.breakpoint ? [i] : []));
      let read = 0;
      for (const b of breaks) {
        for (let i = b; i >= 0 && i > b - lookback; i--) {
          const tokens = cum[i] ?? 0;
          if (tokens > read && entries.get(keys[i] ?? "")?.readable) read = tokens;
        }
      }
      const created: string[] = [];
      let writtenTo = read;
      for (const b of breaks) {
        const tokens = cum[b] ?? 0;
        if (tokens <= read || tokens < minTokens) continue;
        const key = keys[b] ?? "";
        if (!entries.has(key)) {
          entries.set(key, { readable: false });
          created.push(key);
        }
        writtenTo = Math.max(writtenTo, tokens);
      }
      const charge = {
        api: "anthropic" as const,
        input: total - writtenTo,
        cacheRead: read,
        cacheWrite: writtenTo - read,
      };
      charges.push(charge);
      return {
        ...charge,
        begin: () => {
          for (const key of created) entries.set(key, { readable: true });
        },
      };
    },
    openai(model, key, prompt) {
      const partition = `${model}\u0001${key}`;
      const total = tokensOf(prompt.length);
      let shared = 0;
      for (const earlier of seen.get(partition) ?? [])
        shared = Math.max(shared, commonPrefix(earlier, prompt));
      const sharedTokens = Math.floor(shared / 4);
      const read = total >= minTokens && sharedTokens >= minTokens ? sharedTokens - (sharedTokens % 128) : 0;
      const charge = { api: "openai" as const, input: total - read, cacheRead: read, cacheWrite: 0 };
      charges.push(charge);
      return {
        ...charge,
        begin: () => seen.set(partition, [...(seen.get(partition) ?? []), prompt]),
      };
    },
  };
}

export function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

/** The blocks of an Anthropic Messages request, system first, in order. */
export function anthropicBlocks(body: Record<string, unknown>): CacheBlock[] {
  const out: CacheBlock[] = [];
  const add = (v: unknown): void => {
    if (typeof v === "string") {
      out.push({ text: v, breakpoint: false });
      return;
    }
    if (!Array.isArray(v)) return;
    for (const raw of v) {
      const b = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
      out.push({
        text: typeof b.text === "string" ? b.text : JSON.stringify(b),
        breakpoint: b.cache_control !== undefined,
      });
    }
  };
  add(body.system);
  for (const m of Array.isArray(body.messages) ? body.messages : []) {
    add(typeof m === "object" && m !== null ? (m as Record<string, unknown>).content : undefined);
  }
  return out;
}
