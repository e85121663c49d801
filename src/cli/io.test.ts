import { spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { fdWriter } from "./io.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const page = (n: number, fill: number) => Buffer.alloc(n, fill);

describe("Io.outPage's writer (fdWriter)", () => {
  it("writes every page's pieces whole and together, in the order asked, without waiting between the asks", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fixpoint-fdwriter-"));
    dirs.push(dir);
    const file = join(dir, "out");
    const fd = openSync(file, "w");
    try {
      const write = fdWriter(fd);
      const pages = [
        [page(3, 97)],
        [page(1 << 20, 98), new Uint8Array(0)],
        [],
        [page(70_000, 99), page(1, 100)],
      ];
      await Promise.all(pages.map(write));
    } finally {
      closeSync(fd);
    }
    const out = readFileSync(file);
    expect(out.length).toBe(3 + (1 << 20) + 70_000 + 1);
    expect(out.subarray(0, 3).toString()).toBe("aaa");
    expect(out.subarray(3, 3 + (1 << 20)).every((b) => b === 98)).toBe(true);
    expect(out.subarray(3 + (1 << 20), -1).every((b) => b === 99)).toBe(true);
    expect(out.at(-1)).toBe(100);
  });

  it("reports an error to onError and rejects that write and every later one", async () => {
    const errors: string[] = [];
    const write = fdWriter(2_000_000, (e) => errors.push(e.code ?? "?"));
    const first = write([page(10, 1)]);
    const waiting = write([page(10, 1)]);
    await expect(first).rejects.toMatchObject({ code: "EBADF" });
    await expect(waiting).rejects.toMatchObject({ code: "EBADF" });
    await expect(write([page(10, 1)])).rejects.toMatchObject({ code: "EBADF" });
    expect(errors).toEqual(["EBADF"]);
  });

  it("pushes megabytes through a non-blocking pipe whose reader is slower than the writer, asking once to make it blocking", async () => {
    // A child process makes its stdout stream (which leaves a pipe non-blocking), then writes
    // 8 MiB to descriptor 1 through fdWriter. The reader takes nothing for 300 ms, so the pipe
    // fills and the writer meets EAGAIN: onWouldBlock is called once (and makes it blocking).
    // What arrives is every byte in order.
    const io = fileURLToPath(new URL("../../dist/cli/io.js", import.meta.url));
    const script = `import(${JSON.stringify(io)}).then(async ({ fdWriter }) => {
      process.stdout.write("");
      let asked = 0;
      const write = fdWriter(1, undefined, () => { asked++; process.stdout._handle.setBlocking(true); });
      const pages = [];
      for (let i = 0; i < 32; i++) pages.push(write([Buffer.from(","), Buffer.alloc(256 * 1024 - 1, 65 + (i % 26))]));
      await Promise.all(pages);
      process.stderr.write("asked " + asked);
    });`;
    const child = spawn(process.execPath, ["--input-type=module", "-e", script]);
    const out: Buffer[] = [];
    let err = "";
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.stdout.pause();
    child.stdout.on("data", (d: Buffer) => out.push(d));
    setTimeout(() => child.stdout.resume(), 300);
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    expect(code, err).toBe(0);
    expect(err).toBe("asked 1");
    const all = Buffer.concat(out);
    expect(all.length).toBe(32 * 256 * 1024);
    for (let i = 0; i < 32; i++) {
      expect(all[i * 256 * 1024]).toBe(44);
      expect(all[i * 256 * 1024 + 1000]).toBe(65 + (i % 26));
    }
  });
});
