import { didYouMeanSuffix } from "../../util/did-you-mean.js";
import { CONDITION_FUNCTIONS, type Condition, type ConditionEnv, type Expr } from "../types.js";
import { lex, type Operator, type Token } from "./lexer.js";

/**
 * Recursive-descent parser for conditions, lowest precedence first:
 *   or         := and ("||" and)*
 *   and        := equality ("&&" equality)*
 *   equality   := comparison (("==" | "!=") comparison)?
 *   comparison := unary (("<" | "<=" | ">" | ">=") unary)?
 *   unary      := ("!" | "-") unary | primary
 *   primary    := number | string | true | false | name "(" args ")" | "(" or ")"
 * Function names and argument counts are checked here, so a parsed condition can always be
 * evaluated. Never `eval`.
 */

export type ParseConditionResult =
  | { ok: true; condition: Condition }
  | { ok: false; message: string; offset: number };

/** Thrown inside the parser only; parseCondition turns it into data. */
class ConditionSyntaxError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
  }
}

const FUNCTION_NAMES = Object.keys(CONDITION_FUNCTIONS);

/**
 * Bounds that keep parsing and evaluation far from the stack limit, whatever the input: nesting
 * (parentheses, calls, `!`/`-` prefixes) and the operands of one `&&`/`||` chain (a chain builds a
 * left-deep tree the evaluator walks recursively). Real conditions use a handful of each.
 */
export const MAX_CONDITION_DEPTH = 32;
export const MAX_CHAIN_LENGTH = 64;
export const MAX_CONDITION_LENGTH = 4096;
/** Functions whose arguments are names (stage ids, context keys, severities), i.e. strings. */
const STRING_ARGUMENTS = new Set(["outcome", "status", "context", "open"]);

export function parseCondition(text: string): ParseConditionResult {
  if (text.length > MAX_CONDITION_LENGTH) {
    return { ok: false, message: `condition is longer than ${MAX_CONDITION_LENGTH} characters`, offset: 0 };
  }
  const lexed = lex(text);
  if (!lexed.ok) return lexed;
  try {
    const parser = new Parser(lexed.tokens);
    const expr = parser.parseAll();
    return { ok: true, condition: { text, expr } };
  } catch (e) {
    if (e instanceof ConditionSyntaxError) return { ok: false, message: e.message, offset: e.offset };
    throw e;
  }
}

function isFunctionName(name: string): name is keyof ConditionEnv {
  return Object.hasOwn(CONDITION_FUNCTIONS, name);
}

function describe(token: Token): string {
  return token.type === "eof" ? "end of condition" : `\`${token.text}\``;
}

class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  parseAll(): Expr {
    if (this.peek().type === "eof") throw new ConditionSyntaxError("empty condition", 0);
    const expr = this.parseOr();
    const rest = this.peek();
    if (rest.type !== "eof") {
      throw new ConditionSyntaxError(`unexpected ${describe(rest)} after a complete expression`, rest.pos);
    }
    return expr;
  }

  private peek(): Token {
    // The lexer always ends the list with an eof token, so the fallback is unreachable.
    return this.tokens[this.index] ?? { type: "eof", pos: 0, text: "" };
  }

  private next(): Token {
    const token = this.peek();
    if (token.type !== "eof") this.index++;
    return token;
  }

  private matchOp(...ops: Operator[]): (Token & { type: "op" }) | undefined {
    const token = this.peek();
    if (token.type === "op" && ops.includes(token.value)) {
      this.index++;
      return token;
    }
    return undefined;
  }

  private parseOr(): Expr {
    let left = this.parseAnd();
    let operands = 1;
    for (let op = this.matchOp("||"); op; op = this.matchOp("||")) {
      this.countOperand(++operands, op.pos);
      left = { type: "binary", op: "||", left, right: this.parseAnd(), pos: op.pos };
    }
    return left;
  }

  private parseAnd(): Expr {
    let left = this.parseEquality();
    let operands = 1;
    for (let op = this.matchOp("&&"); op; op = this.matchOp("&&")) {
      this.countOperand(++operands, op.pos);
      left = { type: "binary", op: "&&", left, right: this.parseEquality(), pos: op.pos };
    }
    return left;
  }

  private countOperand(operands: number, pos: number): void {
    if (operands > MAX_CHAIN_LENGTH) {
      throw new ConditionSyntaxError(
        `more than ${MAX_CHAIN_LENGTH} operands in one \`&&\`/\`||\` chain; split the condition into routes`,
        pos,
      );
    }
  }

  /** Runs `fn` one nesting level deeper, refusing to go past MAX_CONDITION_DEPTH. */
  private nested<T>(pos: number, fn: () => T): T {
    if (this.depth >= MAX_CONDITION_DEPTH) {
      throw new ConditionSyntaxError(`condition nested more than ${MAX_CONDITION_DEPTH} levels deep`, pos);
    }
    this.depth++;
    try {
      return fn();
    } finally {
      this.depth--;
    }
  }

  private parseEquality(): Expr {
    const left = this.parseComparison();
    const op = this.matchOp("==", "!=");
    if (!op || (op.value !== "==" && op.value !== "!=")) return left;
    const expr: Expr = { type: "binary", op: op.value, left, right: this.parseComparison(), pos: op.pos };
    this.rejectChain(["==", "!="]);
    return expr;
  }

  private parseComparison(): Expr {
    const left = this.parseUnary();
    const op = this.matchOp("<", "<=", ">", ">=");
    if (!op || !(op.value === "<" || op.value === "<=" || op.value === ">" || op.value === ">=")) return left;
    const expr: Expr = { type: "binary", op: op.value, left, right: this.parseUnary(), pos: op.pos };
    this.rejectChain(["<", "<=", ">", ">="]);
    return expr;
  }

  /** `a < b < c` reads like maths but would compare a boolean with a number: refuse it. */
  private rejectChain(ops: Operator[]): void {
    const token = this.peek();
    if (token.type === "op" && ops.includes(token.value)) {
      throw new ConditionSyntaxError(
        `\`${token.value}\` cannot be chained; combine comparisons with \`&&\``,
        token.pos,
      );
    }
  }

  private parseUnary(): Expr {
    const op = this.matchOp("!", "-");
    if (op && (op.value === "!" || op.value === "-")) {
      const operator = op.value;
      return {
        type: "unary",
        op: operator,
        operand: this.nested(op.pos, () => this.parseUnary()),
        pos: op.pos,
      };
    }
    return this.parsePrimary();
  }

  private parsePrimary(): Expr {
    const token = this.next();
    switch (token.type) {
      case "number":
      case "string":
        return { type: "literal", value: token.value, pos: token.pos };
      case "ident":
        return this.parseName(token);
      case "op":
        if (token.value === "(") {
          const inner = this.nested(token.pos, () => this.parseOr());
          this.expectClose(token.pos);
          return inner;
        }
        throw new ConditionSyntaxError(`expected a value, found ${describe(token)}`, token.pos);
      case "eof":
        throw new ConditionSyntaxError("expected a value, found end of condition", token.pos);
    }
  }

  private expectClose(openPos: number): void {
    if (this.matchOp(")")) return;
    const token = this.peek();
    throw new ConditionSyntaxError(
      `expected \`)\` to close the \`(\` at offset ${openPos}, found ${describe(token)}`,
      token.pos,
    );
  }

  private parseName(token: Token & { type: "ident" }): Expr {
    const name = token.value;
    if (name === "true" || name === "false")
      return { type: "literal", value: name === "true", pos: token.pos };
    const isCall = this.peek().type === "op" && this.peek().text === "(";
    if (!isCall) {
      if (isFunctionName(name)) {
        throw new ConditionSyntaxError(`\`${name}\` is a function: write \`${name}()\``, token.pos);
      }
      throw new ConditionSyntaxError(
        `unknown name \`${name}\`: strings need double quotes and functions need parentheses${didYouMeanSuffix(name, FUNCTION_NAMES)}`,
        token.pos,
      );
    }
    if (!isFunctionName(name)) {
      throw new ConditionSyntaxError(
        `unknown function \`${name}\`${didYouMeanSuffix(name, FUNCTION_NAMES)}`,
        token.pos,
      );
    }
    const open = this.next();
    const args = this.nested(open.pos, () => this.parseArgs(open.pos));
    checkArguments(name, args, token.pos);
    return { type: "call", name, args, pos: token.pos };
  }

  private parseArgs(openPos: number): Expr[] {
    const args: Expr[] = [];
    if (this.matchOp(")")) return args;
    do {
      args.push(this.parseOr());
    } while (this.matchOp(","));
    this.expectClose(openPos);
    return args;
  }
}

function checkArguments(name: keyof ConditionEnv, args: Expr[], pos: number): void {
  const [min, max] = CONDITION_FUNCTIONS[name];
  if (args.length < min || args.length > max) {
    throw new ConditionSyntaxError(`\`${name}()\` takes ${describeArity(min, max)}, got ${args.length}`, pos);
  }
  if (!STRING_ARGUMENTS.has(name)) return;
  for (const arg of args) {
    if (arg.type === "literal" && typeof arg.value !== "string") {
      throw new ConditionSyntaxError(`\`${name}()\` takes a string in double quotes`, arg.pos);
    }
  }
}

function describeArity(min: number, max: number): string {
  if (max === 0) return "no arguments";
  const plural = max === 1 ? "argument" : "arguments";
  if (min === max) return `${min} ${plural}`;
  return min === 0 ? `at most ${max} ${plural}` : `${min} to ${max} ${plural}`;
}
