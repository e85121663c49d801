import type { StageKind } from "../../workflow/types.js";
import type { StageHandler } from "../deps.js";
import { fixHandler } from "./fix.js";
import { gateHandler } from "./gate.js";
import { implementHandler } from "./implement.js";
import { reviewHandler } from "./review.js";
import { decisionHandler, exitHandler, humanHandler } from "./simple.js";
import { verifyHandler } from "./verify.js";

/** The built-in handler registry; `parallel` is the executor's own, `github` is registered by the CLI. */
export const BUILTIN_HANDLERS: Partial<Record<StageKind, StageHandler>> = {
  agent: implementHandler,
  review: reviewHandler,
  fix: fixHandler,
  gate: gateHandler,
  decision: decisionHandler,
  exit: exitHandler,
  human: humanHandler,
  verify: verifyHandler,
};
