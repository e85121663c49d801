/**
 * The one errors module. Expected outcomes (a failing gate, an agent exiting 1) are data;
 * these classes are for what stops an operation. Each has a stable `code`, an exit code for the
 * CLI (SPEC §4), and says whether a retry can help.
 */

export type ErrorCode =
  | "usage"
  | "config"
  | "workflow"
  | "not_found"
  | "store"
  | "store_version"
  | "store_locked"
  | "environment"
  | "git"
  | "agent"
  | "checkpoint"
  | "lease_lost"
  | "github"
  | "cancelled"
  | "internal";

/** A position in a source file; lines and columns are 1-based. */
export interface SourceLocation {
  file: string;
  line: number;
  column: number;
}

export function formatLocation(loc: SourceLocation): string {
  return `${loc.file}:${loc.line}:${loc.column}`;
}

export class FixpointError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly location: SourceLocation | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: { cause?: unknown; retryable?: boolean; location?: SourceLocation } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "FixpointError";
    this.code = code;
    this.retryable = options.retryable ?? false;
    this.location = options.location;
  }

  /** SPEC §4: 2 usage/config, 3 store/environment, 1 everything else. */
  get exitCode(): number {
    switch (this.code) {
      case "usage":
      case "config":
      case "workflow":
      case "not_found":
        return 2;
      case "store":
      case "store_version":
      case "store_locked":
      case "environment":
      case "git":
        return 3;
      default:
        return 1;
    }
  }
}

/** One problem found while reading a KDL file (config or workflow). */
export interface Diagnostic {
  location: SourceLocation;
  message: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  return `${formatLocation(d.location)}: ${d.message}`;
}

/** How many diagnostics a message lists before it counts the rest. */
export const LISTED_DIAGNOSTICS = 100;

/**
 * Diagnostics one per line, the first LISTED_DIAGNOSTICS of them and then how many more: a file
 * blown up to a megabyte can have tens of thousands of problems, and a screenful says what is wrong.
 */
export function formatDiagnostics(diagnostics: readonly Diagnostic[]): string {
  const lines = diagnostics.slice(0, LISTED_DIAGNOSTICS).map(formatDiagnostic);
  const more = diagnostics.length - lines.length;
  if (more > 0) lines.push(`… and ${more.toLocaleString("en-US")} more problem${more === 1 ? "" : "s"}`);
  return lines.join("\n");
}

/** Several diagnostics at once; the message lists them one per line (the first hundred). */
export class DiagnosticsError extends FixpointError {
  readonly diagnostics: Diagnostic[];

  constructor(code: "config" | "workflow", diagnostics: Diagnostic[]) {
    super(code, formatDiagnostics(diagnostics), { location: diagnostics[0]?.location });
    this.name = "DiagnosticsError";
    this.diagnostics = diagnostics;
  }
}

/** Normalise anything thrown into an Error without losing it. */
export function toError(e: unknown): Error {
  if (e instanceof Error) return e;
  return new Error(typeof e === "string" ? e : JSON.stringify(e));
}

export function errorMessage(e: unknown): string {
  return toError(e).message;
}
