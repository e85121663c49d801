import type { Node } from "@bgotink/kdl";
import { parseSeverity } from "../findings/severity.js";
import type { DiagnosticSink } from "../util/kdl-diagnostics.js";
import { type FieldSchema, getString, readNodeFields } from "../util/kdl-fields.js";
import type { BotSetting } from "./types.js";

const BOT_FIELDS: FieldSchema = { severity: "severity", command: "string" };

/**
 * `bots "a" "b"` as a child of a `github { … }` block, or a block of one node per bot:
 *
 * ```kdl
 * bots {
 *     coderabbitai severity="P2" command="@coderabbitai resolve"
 *     acme-reviewer severity="P1"
 * }
 * ```
 * `severity` is the bot's default for comments that carry none (and for comments in a format no
 * adapter knows); `command` is added to fixpoint's replies on that bot's threads (a resolve or
 * re-review trigger the bot understands).
 */
export function parseBotsNode(
  node: Node,
  sink: DiagnosticSink,
): { bots: string[]; settings: Record<string, BotSetting> } {
  const bots: string[] = [];
  for (const prop of node.getPropertyEntries())
    sink.report(prop, "`bots` takes logins, or a block of `login severity=… command=…`");
  for (const arg of node.getArgumentEntries()) {
    const v = arg.getValue();
    if (typeof v === "string") bots.push(v);
    else sink.report(arg.value, "`bots` takes bot logins as strings");
  }
  const settings: Record<string, BotSetting> = {};
  for (const child of node.children?.nodes ?? []) {
    const login = child.getName().replace(/\[bot\]$/, "");
    const c = readNodeFields(child, BOT_FIELDS, { positional: [], block: true }, sink);
    const setting: BotSetting = {};
    const severity = getString(c, "severity");
    const level = severity === undefined ? undefined : (parseSeverity(severity) ?? undefined);
    if (level !== undefined) setting.severity = level;
    const command = getString(c, "command");
    if (command !== undefined) setting.command = command;
    settings[login] = setting;
    bots.push(login);
  }
  return { bots: [...new Set(bots)], settings };
}
