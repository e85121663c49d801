// The e2e implementer: writes one small file.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { record } from "./record.mjs";

export default async function implementer(req) {
  record("implementer", req);
  writeFileSync(join(req.cwd, "src/feature.js"), "export const feature = () => 42;\n");
  return { text: "Added src/feature.js.", costUsd: 0.02 };
}
