/**
 * The body of the lease thread (see thread-lease-keeper.ts): opens its own connection to the
 * project's store and renews the leases the main thread asks it to keep, so a worker whose main
 * thread is busy with synchronous work still holds its tasks. Runs only inside a worker thread.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Lease } from "../domain/store.js";
import { type LeaseHandle, type LeaseLoss, renewalLoop, renewLease } from "../engine/lease-keeper.js";
import { errorMessage } from "../errors.js";
import { openStore } from "./open.js";

export type ToThread =
  | { type: "keep"; id: number; lease: Lease; leaseMs: number; everyMs: number; heldSince?: number }
  | { type: "stop"; id: number };

export type FromThread =
  | { type: "lost"; id: number; why: LeaseLoss }
  | { type: "stopped"; id: number }
  | { type: "error"; message: string };

export interface LeaseThreadData {
  url: string;
  projectRoot: string;
}

function main(): void {
  const port = parentPort;
  if (port === null) throw new Error("lease-thread.js runs only as a worker thread");
  const data = workerData as LeaseThreadData;
  // The leases are watched from the first message on, not once the store is open: opening it can
  // hang on a database out of reach (a partition), and a lease's deadline must be noticed by this
  // process's clock meanwhile. A renewal waits for the store; a store that cannot be opened hands
  // every lease to the main thread's keeper.
  const opened = openStore(data.url, data.projectRoot);
  opened.catch((e: unknown) => {
    port.postMessage({ type: "error", message: errorMessage(e) } satisfies FromThread);
  });
  const beats = new Map<number, LeaseHandle>();
  port.on("message", (msg: ToThread) => {
    if (msg.type === "stop") {
      const b = beats.get(msg.id);
      beats.delete(msg.id);
      void (b?.stop() ?? Promise.resolve()).then(() =>
        port.postMessage({ type: "stopped", id: msg.id } satisfies FromThread),
      );
      return;
    }
    const { id, lease, ...opts } = msg;
    const handle = renewalLoop(
      async () => renewLease(await opened, lease, opts.leaseMs, Date.now()),
      opts,
      (why: LeaseLoss) => {
        beats.delete(id);
        port.postMessage({ type: "lost", id, why } satisfies FromThread);
      },
    );
    beats.set(id, handle);
  });
  port.once("close", () => {
    void opened.then(
      (store) => store.close(),
      () => undefined,
    );
  });
}

main();
