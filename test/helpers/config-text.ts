import { parseConfigText } from "../../src/config/parse.js";
import { DiagnosticsError, formatDiagnostic } from "../../src/errors.js";

/** Where the configs parsed by `parseConfig` claim to come from. */
export const CONFIG_FILE = "/repo/fixpoint.kdl";

/** One layer of a fixpoint.kdl text, as read from /repo with /home/u as the home folder. */
export const parseConfig = (text: string) => parseConfigText(text, CONFIG_FILE, { home: "/home/u" });

/** The formatted diagnostics of a config that must not parse; throws when it parses. */
export function configProblems(text: string): string[] {
  try {
    parseConfig(text);
  } catch (e) {
    if (e instanceof DiagnosticsError) return e.diagnostics.map(formatDiagnostic);
    throw e;
  }
  throw new Error("expected the config to be rejected");
}
