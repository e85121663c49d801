import { FixpointError } from "../errors.js";

export function parsePositiveInt(flag: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new FixpointError("usage", `${flag} takes a whole number, not \`${value}\``);
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
