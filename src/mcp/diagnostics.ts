// Diagnostics of the MCP server. stdout belongs to JSON-RPC, so these go to stderr only, and only
// when PAPO_LOG asks for them (Claude Code keeps a server's stderr in its debug logs). PAPO_LOG takes
// a level (`error`, `warn`, `info`, `debug`, `trace`) or comma-separated `target=level` directives
// (docs/mcp.md, "Protocol"); for the MCP server the most verbose level named anywhere applies.
import type { Writable } from 'node:stream';

const LEVELS = ['error', 'warn', 'info', 'debug', 'trace'] as const;
export type LogLevel = (typeof LEVELS)[number];

export interface Diagnostics {
  log(level: LogLevel, message: string): void;
  /** A failure the person must be able to find whatever PAPO_LOG says (a push route lost). */
  report(message: string): void;
  enabled(level: LogLevel): boolean;
}

export function parseLogLevel(spec: string | undefined): number {
  if (spec === undefined || spec.trim() === '') return -1;
  let max = -1;
  for (const part of spec.split(',')) {
    const level = (part.includes('=') ? part.slice(part.indexOf('=') + 1) : part).trim().toLowerCase();
    const i = LEVELS.indexOf(level as LogLevel);
    max = Math.max(max, i === -1 ? LEVELS.indexOf('info') : i);
  }
  return max;
}

export function createDiagnostics(spec: string | undefined, err: Writable): Diagnostics {
  const max = parseLogLevel(spec);
  const enabled = (level: LogLevel) => LEVELS.indexOf(level) <= max;
  const write = (level: LogLevel, message: string) =>
    err.write(`${new Date().toISOString()} ${level.toUpperCase()} papo::mcp ${message}\n`);
  return {
    enabled,
    log(level, message) {
      if (enabled(level)) write(level, message);
    },
    report: (message) => write('warn', message),
  };
}
