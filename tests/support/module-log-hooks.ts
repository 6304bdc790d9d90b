// Module hooks (node:module register) that write every module a process loads, one file: URL a
// line, into $PAPO_TEST_MODULE_LOG/<pid>.txt. Started by module-log.ts through NODE_OPTIONS, so a
// papo process and the transport process it forks each leave the list of what they loaded.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';

type Next = (url: string, context: unknown) => Promise<unknown>;

export async function load(url: string, context: unknown, next: Next): Promise<unknown> {
  const dir = process.env.PAPO_TEST_MODULE_LOG;
  if (dir !== undefined && url.startsWith('file:'))
    appendFileSync(join(dir, `${process.pid}.txt`), `${url}\n`);
  return next(url, context);
}
