import type { Registry } from "../findings/registry.js";
import type { RegistryFacts } from "./step.js";

/** What conditions read from the registry, as plain numbers for the pure step. */
export function registryFacts(registry: Registry): RegistryFacts {
  return {
    blockingOpen: registry.blockingOpen(),
    open: {
      all: registry.openCount(),
      P0: registry.openCount("P0"),
      P1: registry.openCount("P1"),
      P2: registry.openCount("P2"),
      P3: registry.openCount("P3"),
    },
    maxTimesReopened: registry.maxTimesReopened(),
    allBlocked: registry.allBlocked(),
  };
}
