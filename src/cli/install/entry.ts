// What an agent CLI runs to start papo's MCP server, with the environment it needs, for every
// client `papo install` registers papo with (ADR 0070). Only the executable, the profile name and
// non-secret settings are written into a client's configuration, never the room secret; secrets a
// person keeps in variables (a signal token, TURN credentials) are passed by name, so that no
// client's configuration file ever holds them. So is PAPO_SIGNAL when its value may hold one: the
// signal server reads a token from the URL's query (?token=), and an address may carry the
// server's token in its fragment (ADR 0089); papo install writes PAPO_SIGNAL's value only when it
// is an address with neither (ADR 0094).
import { resolve } from 'node:path';
import { papoHome } from '../../client/store/home.js';
import { parseSignalAddress } from '../../client/wire/signal-url.js';

/** Variables papo mcp reads whose values may be written into a client's configuration. */
export const PLAIN_VARIABLES = [
  'PAPO_HOME',
  'PAPO_SIGNAL',
  'PAPO_ICE_POLICY',
  'PAPO_LANG',
  'PAPO_LOG',
  'PAPO_MAX_SENDS_PER_10MIN',
  'PAPO_PUSH',
] as const;

/**
 * Variables the client passes on from its own environment, by name: those that can hold a secret,
 * and NODE_EXTRA_CA_CERTS (the CA file a signal server's certificate may need; without it a client
 * that starts papo with a small environment of its own, as Codex does, breaks a wss:// room).
 */
export const PASSED_VARIABLES = ['PAPO_SIGNAL_TOKEN', 'PAPO_ICE_SERVERS', 'NODE_EXTRA_CA_CERTS'] as const;

export interface McpEntry {
  /** The server's name in the client: always "papo". */
  name: 'papo';
  command: string;
  args: string[];
  /** Written as they are: PAPO_HOME (absolute) and the plain variables set where papo install ran. */
  env: Record<string, string>;
  /** Set where papo install ran and passed by name: the client passes them on from its own environment. */
  passEnv: string[];
  /** Of passEnv, the plain variables whose value may hold a secret (PAPO_SIGNAL with a token): said to the person. */
  withheld: string[];
}

/**
 * The entry for `profile`: this papo (its absolute path, as papoCommand runs it) with `mcp
 * [--profile p]`, or the command line in PAPO_INSTALL_COMMAND (a `docker run -i ...` inside a
 * container, where the path of papo would mean nothing to the host). PAPO_HOME is written only when it is set, as an absolute path.
 */
export function mcpEntry(env: NodeJS.ProcessEnv, profile: string): McpEntry {
  const profileArgs = profile === 'default' ? [] : ['--profile', profile];
  const custom = env.PAPO_INSTALL_COMMAND?.trim();
  let command: string;
  let args: string[];
  if (custom) {
    const words = splitWords(custom);
    command = words[0] ?? custom;
    args = [...words.slice(1), 'mcp', ...profileArgs];
  } else {
    const [papo, first] = papoCommand(resolve(process.argv[1] ?? 'papo'), process.platform, process.execPath);
    command = papo;
    args = [...first, 'mcp', ...profileArgs];
  }
  const written: Record<string, string> = {};
  const withheld: string[] = [];
  for (const name of PLAIN_VARIABLES) {
    const value = env[name];
    if (value === undefined || value.trim() === '') continue;
    if (name === 'PAPO_SIGNAL' && !plainSignalAddress(value)) withheld.push(name);
    else written[name] = name === 'PAPO_HOME' ? papoHome(env) : value;
  }
  const passEnv = [...PASSED_VARIABLES.filter((name) => (env[name] ?? '').trim() !== ''), ...withheld];
  return { name: 'papo', command, args, env: written, passEnv, withheld };
}

/**
 * What a client starts to run papo's `script` (dist/src/cli/main.js) on `platform`: the script
 * itself, which the system runs through its `#!/usr/bin/env node` line; on Windows, which reads no
 * such line and cannot start a .js file, `node` (this papo's own) with the script.
 */
export function papoCommand(script: string, platform: NodeJS.Platform, node: string): [string, string[]] {
  return platform === 'win32' ? [node, [script]] : [script, []];
}

/**
 * Is this PAPO_SIGNAL fit to be written: an address papo reads, with no token in its fragment and
 * no query at all (the server reads ?token=, and papo cannot tell which other parameter a proxy in
 * front of it takes as a secret)? A pin is no secret. One papo cannot read is not written either.
 */
function plainSignalAddress(value: string): boolean {
  try {
    const address = parseSignalAddress(value, 'PAPO_SIGNAL');
    return address.token === undefined && new URL(address.url).search === '';
  } catch {
    return false;
  }
}

/** Splits a command line on blanks, honouring '...' and "..." quotes and backslash escapes. */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line.charAt(i);
    if (quote) {
      if (c === quote) quote = null;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word += line.charAt(++i);
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line.charAt(++i);
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/** Quotes a word for a POSIX shell when it needs it, so a printed command can be pasted. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
