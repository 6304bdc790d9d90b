// Where an agent CLI keeps papo's entry, read without running the client (papo doctor, ADR 0072):
// running one to ask (`claude mcp get papo`) would start papo mcp, which joins the room as the
// profile's member. Each client module lists the places its client reads, in its own order.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { Registration } from './agent-client.js';

/** One place a client may keep papo's entry: a JSON file and the keys down to the entry. */
export interface ConfigPlace {
  scope: string;
  file: string;
  keys: readonly string[];
}

/** The person's home folder as the client sees it. */
export function userHome(env: NodeJS.ProcessEnv): string {
  return env.HOME || homedir();
}

/** `dir` and every folder above it, nearest first (clients look for project files upwards). */
export function upwards(dir: string): string[] {
  const out: string[] = [];
  for (let d = resolve(dir); ; d = dirname(d)) {
    out.push(d);
    if (dirname(d) === d) return out;
  }
}

/** The parsed JSON of `file`, or undefined when it is missing or not JSON. */
export function readJson(file: string): unknown {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
}

function at(value: unknown, keys: readonly string[]): unknown {
  let v = value;
  for (const key of keys) {
    if (v === null || typeof v !== 'object' || !Object.hasOwn(v, key)) return undefined;
    v = (v as Record<string, unknown>)[key];
  }
  return v;
}

/** The first place that holds an entry: registered, with the scope, the file and what it runs. */
export function registrationIn(
  places: readonly ConfigPlace[],
  describe: (entry: unknown) => string,
): Registration {
  const seen = new Map<string, unknown>();
  for (const place of places) {
    if (!seen.has(place.file)) seen.set(place.file, readJson(place.file));
    const entry = at(seen.get(place.file), place.keys);
    if (entry !== undefined && entry !== null) {
      return {
        registered: true,
        detail: `scope ${place.scope} (${place.file}): ${describe(entry)}`.slice(0, 300),
      };
    }
  }
  return { registered: false, detail: '' };
}

/** "command arg arg", from an entry with command and args (a string or an array). */
export function commandLine(entry: unknown): string {
  const e = entry as { command?: unknown; args?: unknown };
  const words = [
    ...(Array.isArray(e.command) ? e.command : [e.command]),
    ...(Array.isArray(e.args) ? e.args : []),
  ].filter((w): w is string => typeof w === 'string');
  return words.join(' ');
}

/** papo's entry under `mcpServers` of the project's settings file, else the user's (Gemini CLI, Qwen Code). */
export function mcpServersRegistration(fileOf: (scope: string) => string): Registration {
  const places = ['project', 'user'].map((scope) => ({
    scope,
    file: fileOf(scope),
    keys: ['mcpServers', 'papo'],
  }));
  return registrationIn(places, commandLine);
}
