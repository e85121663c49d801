/** An amount in USD as `fixpoint status` and the progress lines print it: `$4.10`. */
export function money(usd: number): string {
  return `$${usd.toFixed(2)}`;
}
