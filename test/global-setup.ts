import { execFileSync } from "node:child_process";

/** The CLI tests run the real `fixpoint` binary (dist/cli/main.js): build it once per test run. */
export default function setup(): void {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
}
