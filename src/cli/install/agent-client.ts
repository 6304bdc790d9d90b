// The contract each agent CLI module implements (ADR 0070): how `papo install --client` registers
// papo with it and how `papo doctor` reads the registration back. Apart from the registry
// (clients.ts), so that a client's module imports the contract and not the list it is part of.
import type { Messages } from '../i18n.js';
import type { McpEntry } from './entry.js';

/** In the order `papo install` looks for them when --client is not given: Claude Code first. */
export const CLIENT_IDS = ['claude', 'codex', 'gemini', 'opencode', 'qwen'] as const;
export type ClientId = (typeof CLIENT_IDS)[number];

export interface InstallTarget {
  /** The client papo is registered with (what a refusal's `papo install --client ... --print` names). */
  client: ClientId;
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
