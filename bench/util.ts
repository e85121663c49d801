import { cpus, totalmem } from "node:os";

export interface BenchResult {
  name: string;
  /** The measured figure, in `unit`. */
  value: number;
  unit: string;
  budget: string;
  ok: boolean;
  detail: string;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

export function machine(): string {
  const cpu = cpus()[0]?.model ?? "unknown CPU";
  return `${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}`;
}
