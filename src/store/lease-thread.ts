/**
 * The body of the lease thread (see thread-lease-keeper.ts): opens its own connection to the
 * project's store and renews the leases the main thread asks it to keep, so a worker whose main
 * thread is busy with synchronous work still holds its tasks. Runs only inside a worker thread.
 */
import { parentPort, workerData } from "node:worker_threads";
import type { Lease, Store } from "../domain/store.js";
import { type LeaseLoss, renewLease } from "../engine/lease-keeper.js";
import { errorMessage } from "../errors.js";
import { openStore } from "./open.js";

export type ToThread =
  | { type: "keep"; id: number; lease: Lease; leaseMs: number; everyMs: number }
  | { type: "stop"; id: number };

export type FromThread =
  | { type: "lost"; id: number; why: LeaseLoss }
  | { type: "stopped"; id: number }
  | { type: "error"; message: string };

export interface LeaseThreadData {
  url: string;
  projectRoot: string;
}

async function main(): Promise<void> {
  const port = parentPort;
  if (port === null) throw new Error("lease-thread.js runs only as a worker thread");
  const data = workerData as LeaseThreadData;
  let store: Store;
  try {
    store = await openStore(data.url, data.projectRoot);
  } catch (e) {
    port.postMessage({ type: "error", message: errorMessage(e) } satisfies FromThread);
    return;
  }
  const beats = new Map<number, { timer: NodeJS.Timeout; inFlight: Promise<void> }>();
  port.on("message", (msg: ToThread) => {
    if (msg.type === "stop") {
      const b = beats.get(msg.id);
      beats.delete(msg.id);
      if (b) clearInterval(b.timer);
      void (b?.inFlight ?? Promise.resolve()).then(() =>
        port.postMessage({ type: "stopped", id: msg.id } satisfies FromThread),
      );
      return;
    }
    const entry = { timer: setInterval(() => beat(msg), msg.everyMs), inFlight: Promise.resolve() };
    beats.set(msg.id, entry);
    const beat = (m: Extract<ToThread, { type: "keep" }>) => {
      entry.inFlight = renewLease(store, m.lease, m.leaseMs, Date.now()).then(
        (r) => {
          if (r === "held" || !beats.has(m.id)) return;
          clearInterval(entry.timer);
          beats.delete(m.id);
          port.postMessage({ type: "lost", id: m.id, why: r } satisfies FromThread);
        },
        // Busy or briefly unreachable store: not a loss; the next beat tries again.
        () => undefined,
      );
    };
  });
  port.once("close", () => {
    void store.close();
  });
}

void main();
