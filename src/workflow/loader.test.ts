import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DiagnosticsError, FixpointError } from "../errors.js";
import { listWorkflows, loadWorkflow, projectWorkflowsDir } from "./loader.js";

const minimal = (name: string, description: string) => `workflow "${name}" {
    description "${description}"
    start "implement"
    stage "implement" kind="agent"
    stage "done" kind="exit"
    transition from="implement" to="done"
}
`;

let root: string;
let builtinDir: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "fixpoint-workflows-"));
  builtinDir = join(root, "builtin");
  await mkdir(builtinDir);
  await writeFile(join(builtinDir, "quick.kdl"), minimal("quick", "built-in quick"));
  await writeFile(join(builtinDir, "review-only.kdl"), minimal("review-only", "built-in review"));
  const project = join(root, "project");
  await mkdir(projectWorkflowsDir(project), { recursive: true });
  // The override is found by the name inside the file, not by the file name.
  await writeFile(join(projectWorkflowsDir(project), "my-quick.kdl"), minimal("quick", "project quick"));
  await writeFile(join(projectWorkflowsDir(project), "broken.kdl"), 'workflow "broken" {\n  start "x"\n');
  await writeFile(join(projectWorkflowsDir(project), "notes.txt"), "not a workflow");
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe("workflow loader", () => {
  it("prefers a project workflow over the built-in of the same name", async () => {
    const project = join(root, "project");
    const workflow = await loadWorkflow("quick", project, { builtinDir });
    expect(workflow.description).toBe("project quick");
    expect(workflow.source).toBe(join(projectWorkflowsDir(project), "my-quick.kdl"));
  });

  it("marks built-ins with a builtin: source", async () => {
    const workflow = await loadWorkflow("review-only", join(root, "project"), { builtinDir });
    expect(workflow.source).toBe("builtin:review-only");
  });

  it("works for a project without a .fixpoint/workflows folder", async () => {
    const workflow = await loadWorkflow("quick", join(root, "no-such-project"), { builtinDir });
    expect(workflow.description).toBe("built-in quick");
  });

  it("says which workflows exist when the name is unknown", async () => {
    const error = await loadWorkflow("qiuck", join(root, "project"), { builtinDir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FixpointError);
    expect(error).toMatchObject({
      code: "not_found",
      message: "unknown workflow `qiuck` (available: quick, review-only)",
    });
  });

  it("explains why a broken file named after the workflow cannot be loaded", async () => {
    const error = await loadWorkflow("broken", join(root, "project"), { builtinDir }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DiagnosticsError);
    expect(error).toMatchObject({ message: expect.stringMatching(/broken\.kdl:\d+:\d+: invalid KDL/) });
  });

  it("lists every workflow once, overrides applied, broken files flagged", async () => {
    const project = join(root, "project");
    const listed = await listWorkflows(project, { builtinDir });
    expect(listed.map((w) => [w.name, w.description ?? null, w.error === undefined])).toEqual([
      ["broken", null, false],
      ["quick", "project quick", true],
      ["review-only", "built-in review", true],
    ]);
    expect(listed[0]?.source).toBe(join(projectWorkflowsDir(project), "broken.kdl"));
  });
});
