// JSON lines, the framing of MCP's stdio transport: one JSON text per line, "\n" at its end. The one
// codec of the three ends that speak it (ADR 0079): papo mcp's server (stdio-transport.ts), papo's
// own client of a papo mcp child (cli/stdio-client.ts, used by `papo demo` and the benchmarks), and
// the tests' client, which keeps every raw line to show that nothing but JSON-RPC reaches stdout.
// It knows lines and JSON texts only; what a message means is each end's business (json-rpc.ts
// classifies what the server reads).
import type { Readable } from 'node:stream';

/**
 * One message as one line. JSON.stringify escapes control characters, so a line break inside a
 * value cannot break the framing; the caller writes the whole line in one `write`, so two messages
 * never interleave inside a line.
 */
export function jsonLine(message: unknown): string {
  return `${JSON.stringify(message)}\n`;
}

/** The JSON value of one line, or undefined when the line is not JSON. Never throws. */
export function parseJsonLine(line: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(line) };
  } catch {
    return undefined;
  }
}

/**
 * Cuts text that arrives in chunks into lines at "\n", exactly: each complete line goes to `onLine`
 * as it was sent, without its "\n" (a "\r" before it, a blank line, are handed on as they are);
 * `rest` is what came after the last newline. readLines below is the lenient reading built on it.
 */
export class LineSplitter {
  #buffered = '';
  readonly #onLine: (line: string) => void;

  constructor(onLine: (line: string) => void) {
    this.#onLine = onLine;
  }

  push(chunk: string): void {
    this.#buffered += chunk;
    let nl = this.#buffered.indexOf('\n');
    while (nl !== -1) {
      const line = this.#buffered.slice(0, nl);
      this.#buffered = this.#buffered.slice(nl + 1);
      this.#onLine(line);
      nl = this.#buffered.indexOf('\n');
    }
  }

  /** What came after the last newline (an incomplete line so far). */
  get rest(): string {
    return this.#buffered;
  }
}

/**
 * Reads `input` as JSON lines, leniently, as a server must read its client: accepts "\n" and "\r\n"
 * line ends, skips blank lines, and a last line without its newline at EOF is still handed on (a
 * client that forgets the last newline is served). Each line goes to `onLine`; `onEnd` runs once
 * when the input ends or fails.
 */
export function readLines(input: Readable, onLine: (line: string) => void, onEnd: () => void): void {
  let ended = false;
  const lines = new LineSplitter((raw) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() !== '') onLine(line);
  });
  input.setEncoding('utf8');
  input.on('data', (chunk: string) => lines.push(chunk));
  const end = () => {
    if (ended) return;
    ended = true;
    const rest = lines.rest.trim();
    if (rest !== '') onLine(rest);
    onEnd();
  };
  input.on('end', end);
  input.on('close', end);
  input.on('error', end);
}
