/** Byte sizes as config writes them: `65536`, `"64KiB"`, `"1.5 MiB"`, `"500KB"`, `"800B"`. */
const UNITS: Readonly<Record<string, number>> = {
  b: 1,
  kb: 1000,
  mb: 1000 ** 2,
  kib: 1024,
  mib: 1024 ** 2,
};

/** Whole bytes ≥ 1, or undefined when the text is not a size. */
export function parseSize(v: string | number): number | undefined {
  if (typeof v === "number") return Number.isInteger(v) && v >= 1 ? v : undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(v);
  if (!m) return undefined;
  const unit = UNITS[(m[2] ?? "").toLowerCase() || "b"];
  if (unit === undefined) return undefined;
  const bytes = Math.floor(Number(m[1]) * unit);
  return Number.isSafeInteger(bytes) && bytes >= 1 ? bytes : undefined;
}

/** `65536` → `64 KiB`, for messages. */
export function formatSize(bytes: number): string {
  if (bytes >= 1024 ** 2 && bytes % 1024 ** 2 === 0) return `${bytes / 1024 ** 2} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
