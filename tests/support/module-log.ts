// What a papo process loads: `moduleLogEnv(dir)` is the environment that makes every node process
// started with it (a papo command, the transport process it forks) write the modules it loads
// into `dir`, a file per process (module-log-hooks.ts); `loadedModules(dir)` reads them back.
import { appendFileSync, readdirSync, readFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

type LoadHook = (url: string, context: unknown, next: (url: string, context: unknown) => unknown) => unknown;
const { registerHooks } = nodeModule as { registerHooks?: (hooks: { load: LoadHook }) => void };

// Run as `--import` (this file is the process's first module): registers the hooks. Node 26
// deprecates `module.register()` with a warning on stderr (DEP0205), which the tests read: the
// in-thread `registerHooks()` where the Node has it (22.15 and newer), the older hooks before it.
const dir = process.env.PAPO_TEST_MODULE_LOG;
if (dir !== undefined) {
  if (registerHooks !== undefined)
    registerHooks({
      load(url, context, next) {
        if (url.startsWith('file:')) appendFileSync(join(dir, `${process.pid}.txt`), `${url}\n`);
        return next(url, context);
      },
    });
  else nodeModule.register('./module-log-hooks.js', import.meta.url);
}

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
