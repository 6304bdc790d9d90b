// The MCP server (`papo mcp`), composed along the SDK's layering (docs/mcp.md, "Modules"): the
// stdio transport (stdio-transport.ts: line framing, the single writer, EOF), the JSON-RPC session
// (session.ts: lifecycle, cancellation, progress, shutdown within a budget) and papo's tool server
// (tool-server.ts: the tools, the room member opened in the background, the channel pump). Structure
// as in docs/architecture.md, "The MCP server": a reader, one task per tools/call kept in a map so that
// notifications/cancelled can abort it, a single writer, and a pump that starts after
// notifications/initialized. Streams are injected with production defaults so tests can drive the
// server in-process; the process-level concerns (signals, exit) live in run.ts.
import type { Readable, Writable } from 'node:stream';
import { createDiagnostics } from './diagnostics.js';
import { createSession } from './session.js';
import { createStdioTransport } from './stdio-transport.js';
import { createToolServer, type ToolServerOptions } from './tool-server.js';

export { PROGRESS_INTERVAL_MS, progressIntervalFromEnv } from './tool-server.js';

export interface McpServerOptions extends ToolServerOptions {
  stdin?: Readable;
  stdout?: Writable;
  stderr?: Writable;
  env?: NodeJS.ProcessEnv;
}

export interface McpServer {
  /** Resolves when the input ends (the client closed stdin). */
  readonly inputEnded: Promise<void>;
  /**
   * Cancels in-flight calls (they get no response), stops the pump, and closes the member (which
   * tells the neighbours, flushes state and releases the lock), waiting at most `budgetMs` for it.
   */
  shutdown(budgetMs: number): Promise<void>;
}

export function startMcpServer(options: McpServerOptions): McpServer {
  const env = options.env ?? process.env;
  const log = createDiagnostics(env.PAPO_LOG, options.stderr ?? process.stderr);
  const transport = createStdioTransport(
    options.stdin ?? process.stdin,
    options.stdout ?? process.stdout,
    log,
  );
  const tools = createToolServer(options, { env, writer: transport.writer, log });
  const session = createSession(transport, tools, log);
  transport.listen(session.receive);
  return { inputEnded: transport.ended, shutdown: session.shutdown };
}
