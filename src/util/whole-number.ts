/**
 * A whole number of at least `min` written in decimal digits (surrounding spaces allowed), or
 * undefined: `1.5`, `0x10`, `1e3`, `-1`, an empty text and numbers past 2^53 are not whole numbers
 * here, though `Number` would read some of them. Shared by the environment's variables and the
 * CLI's flags, which word their own errors.
 */
export function wholeNumber(text: string, min: number): number | undefined {
  if (!/^\d+$/.test(text.trim())) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) && n >= min ? n : undefined;
}
