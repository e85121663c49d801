/**
 * `text` without the run of `chars` that ends it. A scan from the end, for untrusted text: the
 * regex `/\n+$/` retries from every position of a run that does not reach the end, so it is
 * quadratic (50,000 newlines and then a word: 0.85 s; a megabyte: minutes).
 */
export function trimTrailing(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text.charAt(end - 1))) end--;
  return end === text.length ? text : text.slice(0, end);
}

/**
 * Every line of `text` without the run of `chars` that ends it, a line ending at `\n`, `\r`,
 * U+2028 or U+2029 (where `$` of a multiline regex stops). One scan: `/[ \t]+$/gm` retries a
 * long run that does not end a line from each of its positions, and a replace with a callback per
 * line holds every line at once (3–4 times slower per line past 16,384 lines; lines.ts).
 */
export function trimLineEnds(text: string, chars: string): string {
  let out = "";
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 10 && c !== 13 && c !== 0x2028 && c !== 0x2029) continue;
    out += trimTrailing(text.slice(from, i), chars) + text.charAt(i);
    from = i + 1;
  }
  return from === 0 ? trimTrailing(text, chars) : out + trimTrailing(text.slice(from), chars);
}
