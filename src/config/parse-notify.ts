import type { Node } from "@bgotink/kdl";
import type { DiagnosticSink } from "../util/kdl-diagnostics.js";
import { readNodeFields } from "../util/kdl-fields.js";

/**
 * `notify "./notify.sh"` or `notify "https://hooks.example.com/fixpoint"`: one non-empty string.
 * A URL must parse and use http or https; anything else is taken as a command.
 */
export function parseNotify(node: Node, sink: DiagnosticSink): string | undefined {
  const f = readNodeFields(node, {}, { positional: ["command or URL"], block: false }, sink);
  const value = f.args[0];
  if (!f.complete || value === undefined) return undefined;
  const where = node.getArgumentEntry(0)?.value ?? node.name;
  const v = value.trim();
  if (v === "") {
    sink.report(where, "`notify` needs a command or an http(s) URL");
    return undefined;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(v)) {
    let url: URL | null = null;
    try {
      url = new URL(v);
    } catch {
      // Reported below: not a URL at all.
    }
    if (url === null || (url.protocol !== "http:" && url.protocol !== "https:")) {
      sink.report(where, `\`notify\`: \`${v}\` is not an http(s) URL (a webhook) nor a command`);
      return undefined;
    }
  }
  return v;
}
