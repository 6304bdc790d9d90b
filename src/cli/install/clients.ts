// The agent CLIs `papo install --client` registers papo with (ADR 0070), one module each. A module
// knows its client's own way to register an MCP server (a command such as `claude mcp add`, or its
// configuration file), what the client needs so that papo's tools run (an approval or trust setting
// for papo's entry only, never wider) and how long it lets a tool call run.
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import type { Messages } from '../i18n.js';
import { claude } from './claude.js';
import { codex } from './codex.js';
import type { McpEntry } from './entry.js';
import { gemini } from './gemini.js';
import { opencode } from './opencode.js';
import { qwen } from './qwen.js';

export interface InstallTarget {
  /** The scope the person chose, or the client's default; one of the client's `scopes`. */
  scope: string;
  /** The project folder (where papo install runs). */
  cwd: string;
  /** The environment papo install runs in (HOME, XDG_CONFIG_HOME, CODEX_HOME, PATH...). */
  env: NodeJS.ProcessEnv;
  /** The person's language. */
  t: Messages;
}

export interface AgentClient {
  id: ClientId;
  /** How people call it: "Claude Code", "Codex CLI"... */
  label: string;
  /** Executable names looked for on PATH, in order. */
  executables: readonly string[];
  /** Scopes of a registration, the default first. */
  scopes: readonly string[];
  /**
   * What `--print` shows: the client's command, or the configuration to add and the file it goes in,
   * ready to paste. Also printed when the client is not on PATH.
   */
  print(entry: McpEntry, target: InstallTarget): string[];
  /** What to run or add by hand when the client is not on PATH; print() when absent. */
  byHand?(entry: McpEntry, target: InstallTarget): string[];
  /**
   * Registers papo with the client found at `exe` (or in its configuration file). Returns the lines
   * to tell the person: where papo was registered, what was set for papo's tools and why, how to
   * start the client. Throws an Error whose message is one line with the fix.
   */
  install(entry: McpEntry, target: InstallTarget, exe: string): string[];
  /**
   * Whether papo is registered with the client, for `papo doctor` (ADR 0072), read from the
   * client's configuration files (running the client to ask would start papo mcp), with one line
   * of detail: the scope, the file and what the entry runs.
   */
  registration?(target: RegistrationTarget): Promise<Registration | null>;
}

export interface RegistrationTarget {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** How long the client may take to answer. */
  timeoutMs: number;
}

export interface Registration {
  registered: boolean;
  /** One line, in the client's own words (no secret: papo's entry holds none, ADR 0070). */
  detail: string;
}

/** In the order `papo install` looks for them when --client is not given: Claude Code first. */
export const CLIENT_IDS = ['claude', 'codex', 'gemini', 'opencode', 'qwen'] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

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
