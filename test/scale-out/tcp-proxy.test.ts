import { connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { startTcpProxy, type TcpProxy } from "../helpers/tcp-proxy.js";

let echo: Server | undefined;
let proxy: TcpProxy | undefined;
const sockets: Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await proxy?.close();
  await new Promise<void>((r) => (echo ? echo.close(() => r()) : r()));
  proxy = undefined;
  echo = undefined;
});

async function setup(): Promise<TcpProxy> {
  echo = createServer((s) => s.pipe(s));
  await new Promise<void>((r) => echo?.listen(0, "127.0.0.1", () => r()));
  const address = echo.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  proxy = await startTcpProxy({ host: "127.0.0.1", port });
  return proxy;
}

/** A client through the proxy that collects what comes back and notes whether it was closed. */
async function client(port: number) {
  const s = connect(port, "127.0.0.1");
  sockets.push(s);
  let got = "";
  let closed = false;
  s.on("data", (d: Buffer) => {
    got += d.toString();
  });
  s.on("close", () => {
    closed = true;
  });
  s.on("error", () => undefined);
  await new Promise<void>((r) => s.once("connect", () => r()));
  return { s, got: () => got, closed: () => closed };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("the partition proxy", () => {
  it("forwards, then holds every byte both ways without closing anything, then delivers them on heal", async () => {
    const p = await setup();
    const old = await client(p.port);
    old.s.write("before ");
    await sleep(100);
    expect(old.got()).toBe("before ");

    p.partition();
    old.s.write("during ");
    const fresh = await client(p.port);
    fresh.s.write("new ");
    await sleep(300);
    expect(old.got()).toBe("before ");
    expect(fresh.got()).toBe("");
    expect(old.closed() || fresh.closed()).toBe(false);

    p.heal();
    await sleep(200);
    expect(old.got()).toBe("before during ");
    expect(fresh.got()).toBe("new ");
    expect(p.accepted).toBe(2);
  });
});
