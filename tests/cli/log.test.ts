import assert from 'node:assert/strict';
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { LogEntry } from '../../src/client/wire/messages.js';
import { tempDir } from '../support/files.js';
import { cleanEnv, runPapo, spawnPapo } from '../support/papo.js';

const node = 'ab'.repeat(32);
const entries: LogEntry[] = [
  {
    ev: 'out',
    msg: {
      id: '3f9a1c07b2',
      from: 'voce',
      node,
      kind: 'agent',
      ts: 1791036191000,
      body: 'Oi, aqui é o agente.\nSegunda linha.',
    },
  },
  { ev: 'delivered', id: '3f9a1c07b2', by: 'colega', ts: 1791036192000 },
  {
    ev: 'in',
    msg: {
      id: '81d4e0aa6c',
      from: 'colega',
      node,
      kind: 'agent',
      to: 'voce',
      reply_to: '3f9a1c07b2',
      ts: 1791036340000,
      body: 'resposta',
    },
  },
];
const lines = (es: LogEntry[]) => es.map((e) => `${JSON.stringify(e)}\n`).join('');

async function profileWithLog(t: { after: (fn: () => void) => void }, env: Record<string, string> = {}) {
  const home = tempDir(t);
  const e = cleanEnv({ PAPO_HOME: home, ...env });
  assert.equal((await runPapo(['new', '--name', 'voce'], { env: e })).code, 0);
  const log = join(home, 'profiles', 'default', 'log.jsonl');
  writeFileSync(log, lines(entries));
  return { env: e, log };
}

test("log -n N prints the last N entries in the book's format, in local time (TZ)", async (t) => {
  const { env, log } = await profileWithLog(t, { TZ: 'America/Sao_Paulo' });
  const r = await runPapo(['log', '-n', '2'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(
    r.stdout,
    '[2026-10-03 11:03:12] delivered 3f9a1c07b2 to colega\n' +
      '[2026-10-03 11:05:40] colega (agent) -> voce (msg 81d4e0aa6c, reply to 3f9a1c07b2): resposta\n',
  );
  const all = await runPapo(['log'], { env: { ...env, TZ: 'UTC' } });
  assert.equal(
    all.stdout.split('\n')[0],
    '[2026-10-03 14:03:11] voce -> room (msg 3f9a1c07b2): Oi, aqui é o agente.',
  );
  assert.equal(all.stdout.split('\n').length, 5); // 3 entries, one body of two lines, final newline
  // A torn last line (a crash mid-append) is not shown.
  appendFileSync(log, '{"ev":"in","msg":{"id":"00');
  assert.equal((await runPapo(['log', '-n', '1'], { env })).stdout, `${r.stdout.split('\n')[1]}\n`);
});

test('log without any entry prints no line on stdout, and says why on stderr', async (t) => {
  const home = tempDir(t);
  const env = cleanEnv({ PAPO_HOME: home });
  await runPapo(['new', '--name', 'voce'], { env });
  const r = await runPapo(['log'], { env });
  assert.equal(r.code, 0, r.stderr);
  assert.equal(r.stdout, '');
  assert.match(r.stderr, /nothing in this room's log yet/);
  assert.match(
    (await runPapo(['log'], { env: { ...env, LANG: 'pt_BR.UTF-8' } })).stderr,
    /nada no log desta sala ainda/,
  );
});

test('log -f shows a line appended by another process, and stops cleanly on SIGINT', async (t) => {
  const { env, log } = await profileWithLog(t, { TZ: 'UTC' });
  const child = spawnPapo(['log', '-f', '-n', '1'], { env });
  t.after(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => {
    err += d.toString();
  });
  const waitFor = (text: string) =>
    new Promise<void>((resolve, reject) => {
      const guard = setTimeout(
        () => reject(new Error(`no "${text}" in log -f output:\n${out}\n${err}`)),
        10_000,
      );
      const check = () => {
        if (out.includes(text)) {
          clearTimeout(guard);
          child.stdout.off('data', onData);
          resolve();
        }
      };
      const onData = (d: Buffer) => {
        out += d.toString();
        check();
      };
      child.stdout.on('data', onData);
      check();
    });
  await waitFor('resposta\n');
  const started = Date.now();
  const next: LogEntry = { ev: 'delivered', id: '81d4e0aa6c', by: 'voce', ts: 1791036400000 };
  appendFileSync(log, lines([next]));
  await waitFor('[2026-10-03 14:06:40] delivered 81d4e0aa6c to voce\n');
  t.diagnostic(`appended line shown after ${Date.now() - started} ms (poll interval 250 ms)`);
  // A line written in two pieces is shown once, whole.
  const split = lines([{ ev: 'delivered', id: 'aaaaaaaaaa', by: 'x', ts: 1791036400000 }]);
  appendFileSync(log, split.slice(0, 20));
  appendFileSync(log, split.slice(20));
  await waitFor('delivered aaaaaaaaaa to x\n');
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGINT');
  assert.equal(await exit, 0);
  assert.equal(err, '');
  assert.equal(out.split('\n').filter((l) => l.includes('delivered')).length, 2);
});
