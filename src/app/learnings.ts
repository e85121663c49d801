import { z } from "zod";
import type { Learning } from "../domain/types.js";
import { FixpointError } from "../errors.js";
import { globMatches } from "../findings/glob.js";
import type { AppContext } from "./context.js";
import { parseInput } from "./validate.js";

/**
 * The repository's learnings (issue 16): what reviewers are told about this code, and what
 * dismisses a finding raised again. `addLearning` is a person's own statement (no originating
 * finding, so it informs reviewers and dismisses nothing by itself).
 */
const AddInput = z
  .object({
    text: z.string({ required_error: "a learning needs a text" }).trim().min(1, "a learning needs a text"),
    path: z.string().trim().min(1, "--path needs a glob").optional(),
  })
  .strict();
export type AddLearningInput = z.input<typeof AddInput>;

export async function addLearning(
  ctx: Pick<AppContext, "store" | "git" | "clock" | "actor" | "root">,
  raw: AddLearningInput,
): Promise<Learning> {
  const input = parseInput("learnings add", AddInput, raw);
  const scope = input.path ?? null;
  if (scope !== null) {
    // Git first, the store write last (one write, nothing to roll back).
    const files = await ctx.git.trackedFiles(ctx.root);
    if (!files.some((f) => globMatches(scope, f))) {
      throw new FixpointError("usage", `--path \`${scope}\` matches no tracked file of this repository`);
    }
  }
  return ctx.store.addLearning({
    repo: ctx.root,
    text: input.text,
    scope,
    source: { kind: "person" },
    origin: null,
    createdAt: ctx.clock.now(),
    createdBy: ctx.actor,
  });
}

const ListInput = z.object({ removed: z.boolean().optional() }).strict();
export type ListLearningsInput = z.input<typeof ListInput>;

/** This repository's learnings, oldest first (removed ones too with `removed: true`). */
export async function listLearnings(
  ctx: Pick<AppContext, "store" | "root">,
  raw: ListLearningsInput = {},
): Promise<Learning[]> {
  const input = parseInput("learnings", ListInput, raw);
  return ctx.store.listLearnings({ repo: ctx.root, includeRemoved: input.removed === true });
}

const RemoveInput = z.object({ id: z.string().trim().min(1, "which learning? (an id like L-3)") }).strict();
export type RemoveLearningInput = z.input<typeof RemoveInput>;

/** Removes a learning: reviewers are no longer told it and it dismisses nothing more. */
export async function removeLearning(
  ctx: Pick<AppContext, "store" | "clock" | "root">,
  raw: RemoveLearningInput,
): Promise<Learning> {
  const input = parseInput("learnings rm", RemoveInput, raw);
  return ctx.store.transaction(async (tx) => {
    const found = await tx.getLearning(input.id);
    if (!found || found.repo !== ctx.root || found.removedAt !== null) {
      throw new FixpointError("not_found", `no learning \`${input.id}\` (see \`fixpoint learnings\`)`);
    }
    const removed = await tx.removeLearning(found.id, ctx.clock.now());
    if (!removed) throw new FixpointError("not_found", `no learning \`${input.id}\``);
    return removed;
  });
}
