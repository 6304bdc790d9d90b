import assert from 'node:assert/strict';
import { test } from 'node:test';
import { formatLogEntry } from '../../src/client/store/log-format.js';

test("the book's three line forms, in the local time of TZ", (t) => {
  const saved = process.env.TZ;
  t.after(() => {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  });
  process.env.TZ = 'America/Sao_Paulo'; // UTC-3 all year
  const node = 'ab'.repeat(32);
  assert.equal(
    formatLogEntry({
      ev: 'out',
      msg: { id: '3f9a1c07b2', from: 'voce', node, kind: 'agent', ts: 1791036191000, body: 'oi' },
    }),
    '[2026-10-03 11:03:11] voce -> room (msg 3f9a1c07b2): oi',
  );
  assert.equal(
    formatLogEntry({ ev: 'delivered', id: '3f9a1c07b2', by: 'colega', ts: 1791036192000 }),
    '[2026-10-03 11:03:12] delivered 3f9a1c07b2 to colega',
  );
  assert.equal(
    formatLogEntry({
      ev: 'in',
      msg: {
        id: '81d4e0aa6c',
        from: 'colega',
        node,
        kind: 'agent',
        to: 'voce',
        reply_to: '3f9a1c07b2',
        ts: 1791036340000,
        body: 'linha 1\nlinha 2',
      },
    }),
    // Further lines of a body are indented by two spaces (ADR 0059).
    '[2026-10-03 11:05:40] colega (agent) -> voce (msg 81d4e0aa6c, reply to 3f9a1c07b2): linha 1\n  linha 2',
  );
  // Received without `to`: the line names this member as the recipient (docs/files.md, "log.jsonl").
  const received = {
    ev: 'in' as const,
    msg: { id: '81d4e0aa6c', from: 'colega', node, kind: 'agent' as const, ts: 1791036340000, body: 'oi' },
  };
  assert.equal(
    formatLogEntry(received, 'voce'),
    '[2026-10-03 11:05:40] colega (agent) -> voce (msg 81d4e0aa6c): oi',
  );
  assert.equal(formatLogEntry(received), '[2026-10-03 11:05:40] colega (agent) -> room (msg 81d4e0aa6c): oi');
  process.env.TZ = 'UTC';
  assert.equal(
    formatLogEntry({ ev: 'delivered', id: '3f9a1c07b2', by: 'colega', ts: 1791036192000 }),
    '[2026-10-03 14:03:12] delivered 3f9a1c07b2 to colega',
  );
});
