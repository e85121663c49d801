import { FixpointError } from "../errors.js";
import { wholeNumber } from "../util/whole-number.js";

/**
 * A flag's whole number of at least `min` (`--max-cycles 3`; util/whole-number.ts says what
 * counts); anything else is a usage error naming the flag, as the CLI reports it, instead of a use
 * case's schema message.
 */
export function parseWholeNumber(flag: string, value: string | undefined, min = 0): number | undefined {
  if (value === undefined) return undefined;
  const n = wholeNumber(value, min);
  if (n === undefined) {
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
