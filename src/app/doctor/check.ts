/**
 * One line of `fixpoint doctor`'s checklist. `fail` means fixpoint cannot work until it is fixed
 * (the command then exits 3); `warn` is worth knowing but not blocking (a rate limit during the
 * round trip); `skip` is a check not run (`--offline`, or one that depends on a failed check).
 */
export type CheckStatus = "ok" | "warn" | "fail" | "skip";

export interface Check {
  name: string;
  status: CheckStatus;
  /** What was found: a version, a path, a round trip's time and tokens, or what went wrong. */
  detail: string;
  /** What to do about a failure or warning, as one sentence a person can act on. */
  fix?: string;
}

const MARK: Record<CheckStatus, string> = { ok: "✓", warn: "!", fail: "✗", skip: "-" };

export function renderChecklist(checks: Check[]): string {
  const width = Math.min(24, Math.max(...checks.map((c) => c.name.length)));
  const lines = checks.map((c) => {
    const head = `  ${MARK[c.status]} ${c.name.padEnd(width)}  ${c.detail}`;
    return c.fix ? `${head}\n      → ${c.fix}` : head;
  });
  const failed = checks.filter((c) => c.status === "fail").length;
  const warned = checks.filter((c) => c.status === "warn").length;
  const tail =
    failed > 0
      ? `${failed} problem${failed === 1 ? "" : "s"} to fix (see → above); then run \`fixpoint doctor\` again.`
      : warned > 0
        ? `Ready, with ${warned} warning${warned === 1 ? "" : "s"} (see → above).`
        : "All checks passed.";
  return `${lines.join("\n")}\n\n${tail}\n`;
}

export function hasFailure(checks: Check[]): boolean {
  return checks.some((c) => c.status === "fail");
}
