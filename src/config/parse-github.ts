import type { Node } from "@bgotink/kdl";
import type { DiagnosticSink } from "../util/kdl-diagnostics.js";
import {
  type FieldSchema,
  getBool,
  getHttpUrl,
  getList,
  getNumber,
  getString,
  readNodeFields,
} from "../util/kdl-fields.js";
import type { GithubLayer } from "./layer.js";
import { parseBotsNode } from "./parse-github-bots.js";

const GITHUB_FIELDS: FieldSchema = {
  repo: "string",
  "base-url": "string",
  "allow-authors": "list",
  bots: "list",
  "max-rework-cycles": "int",
  "comment-timeout": "duration",
  label: "string",
  "tech-debt-label": "string",
  notify: "string",
  "resolve-human-threads": "bool",
  draft: "bool",
  "wait-for-review": "bool",
};

const REPO = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;

/** `github repo="owner/name" …` on one line, or the same fields as child nodes in a block. */
export function parseGithub(node: Node, sink: DiagnosticSink): GithubLayer {
  const f = readNodeFields(node, GITHUB_FIELDS, { positional: [], block: true, special: ["bots"] }, sink);
  const gh: GithubLayer = { location: sink.locate(node.name) };
  const repo = getString(f, "repo");
  if (repo !== undefined) {
    if (REPO.test(repo)) gh.repo = repo;
    else sink.report(f.where.get("repo") ?? node.name, `\`repo\` must look like "owner/name", got "${repo}"`);
  }
  const baseUrl = getHttpUrl(f, "base-url", node, sink);
  if (baseUrl !== undefined) gh.baseUrl = baseUrl;
  const allowAuthors = getList(f, "allow-authors");
  if (allowAuthors !== undefined) gh.allowAuthors = allowAuthors;
  const bots = getList(f, "bots");
  if (bots !== undefined) gh.bots = bots;
  for (const child of f.special) {
    const parsed = parseBotsNode(child, sink);
    gh.bots = [...new Set([...(gh.bots ?? []), ...parsed.bots])];
    if (Object.keys(parsed.settings).length > 0) gh.botSettings = { ...gh.botSettings, ...parsed.settings };
  }
  const maxReworkCycles = getNumber(f, "max-rework-cycles");
  if (maxReworkCycles !== undefined) gh.maxReworkCycles = maxReworkCycles;
  const commentTimeoutMs = getNumber(f, "comment-timeout");
  if (commentTimeoutMs !== undefined) gh.commentTimeoutMs = commentTimeoutMs;
  const label = getString(f, "label");
  if (label !== undefined) gh.label = label;
  const techDebtLabel = getString(f, "tech-debt-label");
  if (techDebtLabel !== undefined) gh.techDebtLabel = techDebtLabel;
  const notify = getString(f, "notify");
  if (notify !== undefined) gh.notify = notify;
  const resolveHumanThreads = getBool(f, "resolve-human-threads");
  if (resolveHumanThreads !== undefined) gh.resolveHumanThreads = resolveHumanThreads;
  const draft = getBool(f, "draft");
  if (draft !== undefined) gh.draft = draft;
  const waitForReview = getBool(f, "wait-for-review");
  if (waitForReview !== undefined) gh.waitForReview = waitForReview;
  return gh;
}
