import { StringDecoder } from "node:string_decoder";
import { errorMessage } from "../errors.js";

/**
 * Splits a byte stream into lines on `\n` only. Node's readline also breaks on U+2028/U+2029,
 * which are legal inside JSON strings, so JSONL read through it can be cut mid-record.
 */
export class LineSplitter {
  private readonly decoder = new StringDecoder("utf8");
  /**
   * The line not yet ended, as the pieces it arrived in: only each new piece is searched for
   * `\n`, and the pieces are joined once, when the line ends. A stream-json tool result can be a
   * single line of tens of megabytes, and searching the whole of it again at every 64 KiB chunk
   * was quadratic (a 40 MB line: 11.7 s).
   */
  private partial: string[] = [];
  constructor(private readonly onLine: (line: string) => void) {}

  push(chunk: Buffer): void {
    this.take(this.decoder.write(chunk));
  }

  end(): void {
    this.take(this.decoder.end());
    const rest = this.partial.join("");
    this.partial = [];
    if (rest !== "") this.emit(rest);
  }

  private take(text: string): void {
    let from = 0;
    for (let nl = text.indexOf("\n"); nl !== -1; nl = text.indexOf("\n", from)) {
      const piece = text.slice(from, nl);
      if (this.partial.length === 0) this.emit(piece);
      else {
        this.partial.push(piece);
        const line = this.partial.join("");
        this.partial = [];
        this.emit(line);
      }
      from = nl + 1;
    }
    if (from < text.length) this.partial.push(from === 0 ? text : text.slice(from));
  }

  private emit(line: string): void {
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    try {
      this.onLine(text);
    } catch (e) {
      // The callback's contract says it must not throw; a throwing one must not break the
      // bookkeeping of a running child, so it is reported and the stream goes on.
      process.emitWarning(`onStdoutLine threw: ${errorMessage(e)}`);
    }
  }
}
