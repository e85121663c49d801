import type { GithubClient } from "../domain/github.js";

/**
 * Who may talk to the agents through a PR (SPEC §11, §13): the configured `allowAuthors`, or —
 * when none are configured — every user with write access; plus the configured `bots`.
 * A `bots` entry matches only comments GitHub marks as written by a bot, so a person who
 * registers a bot's name as a user name gains nothing; machine *users* go in allowAuthors.
 */
export interface AuthorPolicy {
  allowAuthors: string[];
  bots: string[];
  hasWriteAccess: (login: string) => Promise<boolean>;
}

export interface Authored {
  author: string | null;
  authorIsBot?: boolean;
}

export interface IgnoredAuthor {
  /** `ghost` for deleted accounts. */
  author: string;
  count: number;
}

export interface Filtered<T> {
  allowed: T[];
  ignored: IgnoredAuthor[];
}

const norm = (login: string) => login.toLowerCase().replace(/\[bot\]$/, "");

/** A memoising allow-check: each login's write access is asked of GitHub at most once. */
export function createAuthorCheck(policy: AuthorPolicy): (item: Authored) => Promise<boolean> {
  const allow = new Set(policy.allowAuthors.map(norm));
  const bots = new Set(policy.bots.map(norm));
  const access = new Map<string, Promise<boolean>>();
  return async (item) => {
    if (item.author === null) return false;
    const login = norm(item.author);
    if (item.authorIsBot === true && bots.has(login)) return true;
    if (allow.size > 0) return allow.has(login);
    if (item.authorIsBot === true) return false;
    let known = access.get(login);
    if (known === undefined) {
      known = policy.hasWriteAccess(item.author);
      access.set(login, known);
    }
    return known;
  };
}

/** Keep the items from allowed authors; count the rest per author (never their text). */
export async function filterAllowedAuthors<T extends Authored>(
  items: T[],
  policy: AuthorPolicy | ((item: Authored) => Promise<boolean>),
): Promise<Filtered<T>> {
  const isAllowed = typeof policy === "function" ? policy : createAuthorCheck(policy);
  const allowed: T[] = [];
  const ignored = new Map<string, number>();
  for (const item of items) {
    if (await isAllowed(item)) allowed.push(item);
    else {
      const who = item.author ?? "ghost";
      ignored.set(who, (ignored.get(who) ?? 0) + 1);
    }
  }
  return { allowed, ignored: [...ignored].map(([author, count]) => ({ author, count })) };
}

export function mergeIgnored(...lists: IgnoredAuthor[][]): IgnoredAuthor[] {
  const total = new Map<string, number>();
  for (const list of lists) for (const x of list) total.set(x.author, (total.get(x.author) ?? 0) + x.count);
  return [...total].map(([author, count]) => ({ author, count }));
}

/** `hasWriteAccess` backed by the collaborator permission API. */
export function writeAccessFrom(client: Pick<GithubClient, "getCollaboratorPermission">) {
  return async (login: string): Promise<boolean> => (await client.getCollaboratorPermission(login)).canWrite;
}
