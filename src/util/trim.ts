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
