/**
 * A diff as reviewers see it: git's `index <blob>..<blob>` header lines removed. They name the
 * file's blob before and after, so any edit to a file changes them, and they stand before the
 * file's content: a one-line fix near the end of a file would end the prefix that the next
 * cycle's prompt shares with this one's at that file's header. They tell a reviewer nothing.
 */
export function withoutBlobIds(diff: string): string {
  return diff.replace(/^index [0-9a-f]+\.\.[0-9a-f]+(?: [0-7]{6})?\n/gm, "");
}
