import { KEEPALIVE_DELAY_MS } from "./connection.js";
import pg from "./pg-driver.js";

/** At most this many notifications are remembered while no one waits (each wakes one wait). */
const MAX_PENDING = 64;

/**
 * One LISTEN connection per process on the `fixpoint_work` channel (the tasks trigger NOTIFYs it
 * when a task becomes queued). Each notification wakes one waiter; one that arrives while no one
 * waits is kept, so a task queued between a worker's empty claim and its wait is not missed.
 * When the connection is down every wait falls back to its timeout (the slow poll), and the next
 * wait connects again.
 */
export class WorkListener {
  private client: pg.Client | null = null;
  private connecting: Promise<void> | null = null;
  private readonly waiters: (() => void)[] = [];
  private pending = 0;
  private closed = false;

  constructor(private readonly url: string) {}

  private connect(): Promise<void> {
    if (this.client !== null || this.closed) return Promise.resolve();
    this.connecting ??= (async () => {
      const client = new pg.Client({
        connectionString: this.url,
        application_name: "fixpoint-listen",
        connectionTimeoutMillis: 10_000,
        keepAlive: true,
        keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
      });
      const drop = () => {
        if (this.client === client) this.client = null;
        client.end().catch(() => undefined);
      };
      client.on("error", drop);
      client.on("end", drop);
      client.on("notification", () => this.wakeOne());
      try {
        await client.connect();
        await client.query("LISTEN fixpoint_work");
        if (this.closed) await client.end();
        else this.client = client;
      } catch {
        await client.end().catch(() => undefined);
      } finally {
        this.connecting = null;
      }
    })();
    return this.connecting;
  }

  private wakeOne(): void {
    const waiter = this.waiters.shift();
    if (waiter !== undefined) waiter();
    else this.pending = Math.min(MAX_PENDING, this.pending + 1);
  }

  async wait(timeoutMs: number, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return;
    // Connecting (or failing to) happens alongside the wait, so an unreachable server never
    // stretches it past `timeoutMs`.
    void this.connect();
    if (this.pending > 0) {
      this.pending--;
      return;
    }
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        const i = this.waiters.indexOf(done);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      signal?.addEventListener("abort", done, { once: true });
      this.waiters.push(done);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.connecting;
    for (const w of this.waiters.splice(0)) w();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }
}
