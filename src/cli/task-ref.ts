import { FixpointError } from "../errors.js";

/**
 * A whole number of at least `min` written in decimal digits (`--max-cycles 3`); anything else
 * (`abc`, `1.5`, `0x10`, `1e3`, an empty string, or below `min`) is a usage error naming the flag,
 * as the CLI reports it, instead of a use case's schema message.
 */
export function parseWholeNumber(flag: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min) {
    const atLeast = min > 0 ? ` ≥ ${min}` : "";
    throw new FixpointError("usage", `${flag} takes a whole number${atLeast}, not \`${value}\``);
  }
  return n;
}

/** A whole number that may be negative (`--priority -1`). */
export function parseInteger(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (value.trim() === "" || !Number.isSafeInteger(n))
    throw new FixpointError("usage", `${flag} takes a whole number, not \`${value}\``);
  return n;
}

export function parseNumber(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0)
    throw new FixpointError("usage", `${flag} takes a positive number, not \`${value}\``);
  return n;
}
