import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { LogFile, readInboundIds, readLogFrom, readLogTail } from '../../src/client/store/log-file.js';
import { formatLogEntry } from '../../src/client/store/log-format.js';
import type { Envelope, LogEntry } from '../../src/client/wire/messages.js';
import { type Hooks, tempDir } from '../support/files.js';

function tempLog(t: Hooks): string {
  return join(tempDir(t, 'papo-log-'), 'log.jsonl');
}

function msg(i: number, body = `body ${i}`): Envelope {
  return {
    id: i.toString(16).padStart(10, '0'),
    from: 'colega',
    node: 'ab'.repeat(32),
    kind: 'agent',
    ts: 1_791_036_191_000 + i,
    body,
  };
}

const line = (e: LogEntry) => `${JSON.stringify(e)}\n`;

test('append writes whole lines, file mode 0600, read back in order', async (t) => {
  const path = tempLog(t);
  const log = new LogFile(path);
  await log.append({ ev: 'out', msg: msg(1) });
  await log.append({ ev: 'delivered', id: msg(1).id, by: 'colega', ts: 5 });
  await log.append({ ev: 'in', msg: msg(2) });
  assert.equal(statSync(path).mode & 0o777, 0o600);
  const text = readFileSync(path, 'utf8');
  assert.equal(text.split('\n').length, 4);
  assert.ok(text.endsWith('\n'));
  const tail = await log.readTail(10);
  assert.deepEqual(
    tail.map((e) => e.ev),
    ['out', 'delivered', 'in'],
  );
});

test('a torn last line is ignored by every reader, and the next append starts a new line', async (t) => {
  const path = tempLog(t);
  writeFileSync(path, line({ ev: 'in', msg: msg(1) }) + line({ ev: 'in', msg: msg(2) }));
  appendFileSync(path, line({ ev: 'in', msg: msg(3) }).slice(0, 40)); // crash mid-append
  assert.deepEqual(
    (await readLogTail(path, 10)).map((e) => (e.ev === 'in' ? e.msg.id : '')),
    [msg(1).id, msg(2).id],
  );
  assert.deepEqual([...(await readInboundIds(path))], [msg(1).id, msg(2).id]);
  const follow = await readLogFrom(path, 0);
  assert.equal(follow.entries.length, 2);

  await new LogFile(path).append({ ev: 'in', msg: msg(4) });
  const ids = (await readLogTail(path, 10)).map((e) => (e.ev === 'in' ? e.msg.id : ''));
  assert.deepEqual(ids, [msg(1).id, msg(2).id, msg(4).id]);
});

test('tail of a large log: the last N in order, across chunk boundaries and long lines', async (t) => {
  const path = tempLog(t);
  const entries: LogEntry[] = [];
  let text = '';
  for (let i = 0; i < 3000; i++) {
    // Every 500th body is longer than the 64 KiB read chunk.
    const e: LogEntry = {
      ev: i % 2 ? 'in' : 'out',
      msg: msg(i, i % 500 === 7 ? 'x'.repeat(70_000) : `b${i}`),
    };
    entries.push(e);
    text += line(e);
  }
  writeFileSync(path, text);
  for (const n of [1, 2, 7, 100, 494, 1000, 3000, 5000]) {
    const tail = await readLogTail(path, n);
    assert.deepEqual(tail, entries.slice(-n), `n=${n}`);
  }
  assert.deepEqual(await readLogTail(path, 0), []);
  assert.equal((await readInboundIds(path)).size, 1500);
});

test('tail up to a byte offset, then follow from it', async (t) => {
  const path = tempLog(t);
  writeFileSync(path, line({ ev: 'out', msg: msg(1) }));
  const size = statSync(path).size;
  appendFileSync(path, line({ ev: 'out', msg: msg(2) }));
  assert.equal((await readLogTail(path, 10, size)).length, 1);
  const partial = line({ ev: 'out', msg: msg(3) });
  appendFileSync(path, partial.slice(0, 10));
  const first = await readLogFrom(path, size);
  assert.equal(first.entries.length, 1);
  appendFileSync(path, partial.slice(10));
  const second = await readLogFrom(path, first.next);
  assert.deepEqual(second.entries, [{ ev: 'out', msg: msg(3) }]);
  assert.equal(second.next, statSync(path).size);
});

test('a missing log is an empty log', async (t) => {
  const path = tempLog(t);
  assert.deepEqual(await readLogTail(path, 5), []);
  assert.equal((await readInboundIds(path)).size, 0);
  assert.deepEqual(await readLogFrom(path, 0), { entries: [], next: 0 });
});

test('a line whose fields are of the wrong type is skipped like a foreign one: formatting what is read never throws (found by the profile fuzz target)', async (t) => {
  const path = tempLog(t);
  // A `toString` that is not a function made `papo log` and the history tool throw while formatting.
  const bad = [
    { ev: 'in', msg: { ...msg(1), body: { toString: 1 } } },
    { ev: 'out', msg: { ...msg(2), ts: { valueOf: [] } } },
    { ev: 'review', id: msg(3).id, decision: 'rejected', ts: 1, reason: { toString: 1 } },
    { ev: 'delivered', id: msg(4).id, by: ['colega'], ts: 1 },
    { ev: 'impostor', name: 'colega', kind: 'robot', node: 'ab'.repeat(32), ts: 1 },
  ];
  writeFileSync(path, `${bad.map((e) => JSON.stringify(e)).join('\n')}\n${line({ ev: 'in', msg: msg(5) })}`);
  const entries = await readLogTail(path, 10);
  assert.deepEqual(entries, [{ ev: 'in', msg: msg(5) }]);
  for (const e of entries) formatLogEntry(e, 'voce');
  assert.deepEqual([...(await readInboundIds(path))], [msg(5).id]);
});
