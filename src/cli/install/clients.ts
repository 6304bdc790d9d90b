// The agent CLIs `papo install --client` registers papo with (ADR 0070), one module each. A module
// knows its client's own way to register an MCP server (a command such as `claude mcp add`, or its
// configuration file), what the client needs so that papo's tools run (an approval or trust setting
// for papo's entry only, never wider) and how long it lets a tool call run.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { type AgentClient, CLIENT_IDS, type ClientId } from './agent-client.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import { gemini } from './gemini.js';
import { opencode } from './opencode.js';
import { qwen } from './qwen.js';

export const CLIENTS: Record<ClientId, AgentClient> = { claude, codex, gemini, opencode, qwen };

/** The first executable of `names` on PATH, or null. */
export function findExecutable(names: readonly string[], env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir || !isAbsolute(dir)) continue;
    for (const name of names) {
      const path = join(dir, name);
      try {
        if (!statSync(path).isFile()) continue;
        accessSync(path, constants.X_OK);
        return path;
      } catch {}
    }
  }
  return null;
}

/** The client to register with when none is named: the first on PATH, Claude Code first. */
export function clientOnPath(env: NodeJS.ProcessEnv): AgentClient | null {
  for (const id of CLIENT_IDS) {
    if (findExecutable(CLIENTS[id].executables, env) !== null) return CLIENTS[id];
  }
  return null;
}
