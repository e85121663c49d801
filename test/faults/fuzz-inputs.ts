import fc from "fast-check";

/**
 * Input generators for the parser fuzzers: random text, mutations of a valid input (the inputs
 * most likely to reach deep into a parser), and deep nesting (the inputs that overflow stacks).
 */

/** How many cases each fuzzer runs: small in the ordinary suite, larger in `npm run test:faults`. */
export function fuzzRuns(normal: number): number {
  const scale = Number(process.env.FIXPOINT_FAULT_SCALE ?? "1");
  return Math.max(1, Math.round(normal * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
}

type Mutation = (s: string) => string;

const mutation = (alphabet: fc.Arbitrary<string>): fc.Arbitrary<Mutation> =>
  fc.oneof(
    // delete a slice
    fc.tuple(fc.nat(), fc.nat({ max: 40 })).map(
      ([at, n]): Mutation =>
        (s) => {
          const i = at % (s.length + 1);
          return s.slice(0, i) + s.slice(i + n);
        },
    ),
    // insert random text
    fc.tuple(fc.nat(), fc.string({ unit: alphabet, maxLength: 12 })).map(
      ([at, t]): Mutation =>
        (s) => {
          const i = at % (s.length + 1);
          return s.slice(0, i) + t + s.slice(i);
        },
    ),
    // duplicate a slice somewhere else
    fc.tuple(fc.nat(), fc.nat({ max: 80 }), fc.nat()).map(
      ([from, n, to]): Mutation =>
        (s) => {
          const i = from % (s.length + 1);
          const j = to % (s.length + 1);
          return s.slice(0, j) + s.slice(i, i + n) + s.slice(j);
        },
    ),
    // replace one character
    fc.tuple(fc.nat(), alphabet).map(
      ([at, c]): Mutation =>
        (s) => {
          const i = at % Math.max(1, s.length);
          return s.slice(0, i) + c + s.slice(i + 1);
        },
    ),
  );

/** A valid input with 1–8 random mutations applied. */
export function mutated(valid: readonly string[], syntax: string): fc.Arbitrary<string> {
  const alphabet = fc.oneof(
    fc.constantFrom(...syntax.split("")),
    fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }),
  );
  return fc
    .tuple(fc.constantFrom(...valid), fc.array(mutation(alphabet), { minLength: 1, maxLength: 8 }))
    .map(([text, ms]) => ms.reduce((s, m) => m(s), text));
}

/** Any text: ASCII-heavy with the syntax's own characters, and full Unicode. */
export function randomText(syntax: string): fc.Arbitrary<string> {
  return fc.oneof(
    fc.string({ unit: fc.constantFrom(...`${syntax} \n\tabcxyz019"\\`.split("")), maxLength: 200 }),
    fc.string({ unit: "binary", maxLength: 200 }),
  );
}

/** `open` repeated n times around `inner`, closed (or not) by `close`. */
export function deeplyNested(open: string, inner: string, close: string): fc.Arbitrary<string> {
  return fc
    .tuple(fc.integer({ min: 50, max: 3_000 }), fc.boolean())
    .map(([n, closed]) => open.repeat(n) + inner + (closed ? close.repeat(n) : ""));
}

/**
 * A valid input made nasty the way real files and agent replies are: CRLF line ends, NUL bytes,
 * unpaired UTF-16 surrogates, a byte-order mark, Unicode line separators, or blown up to about a
 * megabyte by repeating a piece of it (`huge: false` leaves that out: through the CLI, a megabyte
 * of repeated stages is reported one line per problem, more than a test's output buffer holds).
 */
export function nasty(valid: readonly string[], opts: { huge?: boolean } = {}): fc.Arbitrary<string> {
  const at = (s: string, i: number) => i % (s.length + 1);
  const insert = (text: fc.Arbitrary<string>) =>
    fc
      .tuple(fc.constantFrom(...valid), fc.array(fc.tuple(fc.nat(), text), { minLength: 1, maxLength: 6 }))
      .map(([s, cuts]) =>
        cuts.reduce((acc, [i, t]) => acc.slice(0, at(acc, i)) + t + acc.slice(at(acc, i)), s),
      );
  const huge = fc
    .tuple(fc.constantFrom(...valid), fc.nat(), fc.integer({ min: 1, max: 400 }))
    .map(([s, i, n]) => {
      const from = at(s, i);
      const piece = s.slice(from, from + n) || "x";
      return s.slice(0, from) + piece.repeat(Math.ceil(1_000_000 / piece.length)) + s.slice(from);
    });
  const options = [
    { arbitrary: fc.constantFrom(...valid).map((s) => s.replace(/\n/g, "\r\n")), weight: 3 },
    { arbitrary: fc.constantFrom(...valid).map((s) => `\uFEFF${s}`), weight: 3 },
    {
      arbitrary: insert(
        fc.constantFrom("\u0000", "\u0000\u0000\u0000", "\r", "\u2028", "\u0085", "\u001b[31m"),
      ),
      weight: 3,
    },
    { arbitrary: insert(fc.constantFrom("\uD800", "\uDFFF", "\uDBFF\uDBFF", "\uDC00x\uD800")), weight: 3 },
  ];
  // A megabyte costs a parser real time: one case in thirteen.
  return fc.oneof(...options, ...(opts.huge === false ? [] : [{ arbitrary: huge, weight: 1 }]));
}
