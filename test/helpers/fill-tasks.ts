import { openStore } from "../../src/store/open.js";

/**
 * Adds `n` queued tasks to the SQLite store of the project at `repo`, in one transaction (what a
 * long listing's tests start from; the CLI would take a process per task). `title(i)` names the
 * i-th, counting from 0; the tasks get ids t-1 … t-n in that order in a fresh project.
 */
export async function fillTasks(repo: string, n: number, title: (i: number) => string): Promise<void> {
  const store = await openStore("sqlite", repo);
  try {
    await store.transaction(async (tx) => {
      for (let i = 0; i < n; i++) {
        await tx.createTask(
          {
            type: "implement",
            title: title(i),
            prompt: "p",
            workflow: "implement-review",
            repo,
            baseBranch: "main",
            maxCycles: 3,
          },
          Date.now(),
        );
      }
    });
  } finally {
    await store.close();
  }
}
