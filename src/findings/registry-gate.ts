import type { Finding, RawFinding } from "../domain/types.js";
import { fingerprint } from "./fingerprint.js";
import { byId, isGateOnly, type RegistryCore } from "./registry-core.js";

export type GateResult = { passed: true } | { passed: false; finding: RawFinding };

/** The finding a gate should update: its live one, else its latest resolved one (a reopen). */
function existingFor(core: RegistryCore, gate: string): Finding | undefined {
  const mine = [...core.findings.values()].filter((f) => isGateOnly(f, gate)).sort(byId);
  return mine.filter((f) => f.status !== "resolved" && f.status !== "dismissed").at(-1) ?? mine.at(-1);
}

/**
 * SPEC §7/§8 rule 4. A failing gate keeps ONE finding per gate: the body is refreshed each time
 * rather than a new finding added per cycle. A fixed claim that the gate contradicts, or a
 * resolved gate failing again, is a reopen. A passing gate resolves every finding raised only by
 * it (whatever the fixer claimed).
 */
export function applyGate(core: RegistryCore, gate: string, cycle: number, result: GateResult): void {
  const source = { source: `gate:${gate}`, cycle };
  if (result.passed) {
    for (const f of core.findings.values()) {
      if (isGateOnly(f, gate) && f.status !== "resolved" && f.status !== "dismissed") {
        core.setStatus(f, "resolved", cycle, `gate ${gate} passed`);
      }
    }
    return;
  }
  const raw = result.finding;
  const f = existingFor(core, gate);
  if (!f || f.status === "dismissed") {
    core.create(raw, source);
    return;
  }
  if (f.status === "fixed" || f.status === "resolved") core.reopen(f, cycle, `gate ${gate} failed again`);
  f.title = raw.title;
  f.body = raw.body;
  f.severity = raw.severity;
  f.fingerprint = fingerprint(f);
  core.addSource(f, source);
}
