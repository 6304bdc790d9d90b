// What a papo process loads: `moduleLogEnv(dir)` is the environment that makes every node process
// started with it (a papo command, the transport process it forks) write the modules it loads
// into `dir`, a file per process (module-log-hooks.ts); `loadedModules(dir)` reads them back.
import { readdirSync, readFileSync } from 'node:fs';
import { register } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Run as `--import` (this file is the process's first module): registers the hooks.
if (process.env.PAPO_TEST_MODULE_LOG !== undefined) register('./module-log-hooks.js', import.meta.url);

export function moduleLogEnv(dir: string): Record<string, string> {
  return { PAPO_TEST_MODULE_LOG: dir, NODE_OPTIONS: `--import=${fileURLToPath(import.meta.url)}` };
}

/** Each process's loaded modules (file: URLs), by pid. */
export function loadedModules(dir: string): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const f of readdirSync(dir))
    out.set(Number(f.replace('.txt', '')), readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean));
  return out;
}
