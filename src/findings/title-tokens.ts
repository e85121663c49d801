/**
 * A file's titles by their tokens, for lookups by the title alone in a file holding many findings
 * without lines (or for a finding without lines in a file holding many): SPEC §8 makes every one
 * of them a candidate, and a distance of 0.3 leaves no exact filter that narrows the search (pieces
 * of 2 to 3 characters; docs/benchmarks.md, 2026-12-03). Comparing with each made such a file cost
 * the square of its findings. Past dedup.ts's TITLE_SCAN_MAX, a lookup compares instead with the
 * titles that share the most of its rarer tokens: a bounded number of postings read, a bounded
 * number of titles compared. A title that close to another keeps most of its words, pairs of
 * adjacent words and four-character runs; the rarest of them, read first, find it. This is the one
 * place where SPEC §8's rule is not checked against every candidate: a title close to another only
 * through tokens that thousands of the file's titles share can be missed, and stays a finding of
 * its own (never a wrong merge: every candidate is still checked by the rule).
 */

/** Postings read per lookup at most, the rarest tokens first. */
export const TOKEN_READS = 1024;
/** Titles a lookup compares with at most: those sharing the most tokens read. */
export const TOKEN_CANDIDATES = 32;

/** Normalized titles hold letters, digits and single spaces only: these prefixes cannot clash. */
const WORD = "\u0001";
const PAIR = "\u0002";
const HEAD = "\u0003";
const TAIL = "\u0004";
/** The lengths of a title's heads and tails that are tokens. */
const ENDS = [8, 12, 16, 24];

/**
 * A normalized title's tokens: its words, its pairs of adjacent words, its four-character runs
 * (runs of three were too common to find a close title among thousands made of the same words),
 * and its first and last 8, 12, 16 and 24 characters (an edit inside a title keeps its ends, and
 * they tell apart titles made of the same few words).
 */
export function titleTokens(title: string): Set<string> {
  const out = new Set<string>();
  const words = title.split(" ").filter((w) => w !== "");
  for (let i = 0; i < words.length; i++) {
    out.add(WORD + words[i]);
    if (i + 1 < words.length) out.add(`${PAIR}${words[i]} ${words[i + 1]}`);
  }
  for (let i = 0; i + 4 <= title.length; i++) out.add(title.slice(i, i + 4));
  for (const n of ENDS) {
    if (n >= title.length) break;
    out.add(HEAD + title.slice(0, n));
    out.add(TAIL + title.slice(-n));
  }
  return out;
}

/** Item indexes by token; an index is the caller's (dedup.ts's place in its bucket). */
export class TitleTokens {
  private readonly postings = new Map<string, number[]>();
  /** Per index, stamped with the lookup that last counted it, so no lookup clears anything. */
  private count = new Uint32Array(0);
  private stamp = new Float64Array(0);
  private lastLookup = 0;

  add(at: number, title: string): void {
    for (const t of titleTokens(title)) {
      const list = this.postings.get(t);
      if (list) list.push(at);
      else this.postings.set(t, [at]);
    }
  }

  /**
   * At most TOKEN_CANDIDATES indexes of titles sharing tokens with `title`: its tokens' postings
   * are read rarest first until TOKEN_READS (a token whose postings would pass it is left, and so
   * are the commoner ones after it; only the rarest is cut to fit), and the indexes sharing the
   * most of them are returned, in the order they were first read on ties. `size` is above every
   * index added.
   */
  candidates(title: string, size: number): number[] {
    if (this.stamp.length < size) {
      const grown = 2 ** Math.ceil(Math.log2(size));
      this.count = new Uint32Array(grown);
      this.stamp = new Float64Array(grown);
    }
    const lists: number[][] = [];
    for (const t of titleTokens(title)) {
      const list = this.postings.get(t);
      if (list) lists.push(list);
    }
    lists.sort((a, b) => a.length - b.length);
    const lookup = ++this.lastLookup;
    const { count, stamp } = this;
    const touched: number[] = [];
    let reads = 0;
    let most = 0;
    for (const list of lists) {
      const take = Math.min(list.length, TOKEN_READS - reads);
      if (take < list.length && reads > 0) break;
      for (let k = 0; k < take; k++) {
        const at = list[k] as number;
        if (stamp[at] !== lookup) {
          stamp[at] = lookup;
          count[at] = 0;
          touched.push(at);
        }
        const c = (count[at] as number) + 1;
        count[at] = c;
        if (c > most) most = c;
      }
      reads += take;
      if (reads >= TOKEN_READS) break;
    }
    if (touched.length <= TOKEN_CANDIDATES) return touched;
    // The smallest count `cut` such that fewer than TOKEN_CANDIDATES share more than it.
    const titlesWith = new Uint32Array(most + 1);
    for (const at of touched) {
      const c = count[at] as number;
      titlesWith[c] = (titlesWith[c] as number) + 1;
    }
    let cut = most;
    let above = 0;
    while (above + (titlesWith[cut] as number) < TOKEN_CANDIDATES) {
      above += titlesWith[cut] as number;
      cut--;
    }
    let room = TOKEN_CANDIDATES - above;
    const out: number[] = [];
    for (const at of touched) {
      const c = count[at] as number;
      if (c > cut) out.push(at);
      else if (c === cut && room > 0) {
        out.push(at);
        room--;
      }
    }
    return out;
  }
}
