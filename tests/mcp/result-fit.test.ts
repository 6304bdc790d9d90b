import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Envelope } from '../../src/client/messages.js';
import { fitLines, fitMessages, fitStatus } from '../../src/mcp/result-fit.js';
import { LIMITS, UNTRUSTED_NOTICE } from '../../src/mcp/texts.js';

const msg = (i: number, body: string): Envelope => ({
  id: i.toString(16).padStart(10, '0'),
  from: 'colega',
  node: 'ab'.repeat(32),
  kind: 'agent',
  ts: 1_790_000_000_000 + i * 1000,
  body,
});

test('all messages fit: notice first, blank line between messages, nothing remains', () => {
  const fitted = fitMessages([msg(1, 'one'), msg(2, 'two')]);
  assert.equal(fitted.remaining, 0);
  assert.equal(fitted.included.length, 2);
  assert.ok(fitted.text.startsWith(`${UNTRUSTED_NOTICE}\n\n[msg_id=0000000001 `));
  assert.match(fitted.text, /\n {2}one\n\n\[msg_id=0000000002 /);
});

test('too many messages: those that fit are returned in order, the rest counted', () => {
  const messages = Array.from({ length: 30 }, (_, i) => msg(i + 1, 'x'.repeat(3000)));
  const fitted = fitMessages(messages);
  assert.ok(fitted.text.length <= LIMITS.maxResultChars, `${fitted.text.length}`);
  assert.ok(fitted.included.length >= 12 && fitted.included.length < 30);
  assert.deepEqual(
    fitted.included.map((m) => m.id),
    messages.slice(0, fitted.included.length).map((m) => m.id),
  );
  assert.equal(fitted.remaining, 30 - fitted.included.length);
  assert.match(fitted.text, new RegExp(`${fitted.remaining} more unread messages did not fit`));
});

test('property: the result never exceeds the budget unless the first message alone does', () => {
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  for (let round = 0; round < 200; round++) {
    const n = 1 + Math.floor(next() * 20);
    const messages = Array.from({ length: n }, (_, i) => msg(i + 1, 'y'.repeat(Math.floor(next() * 12_000))));
    const fitted = fitMessages(messages);
    assert.ok(fitted.included.length >= 1);
    assert.equal(fitted.included.length + fitted.remaining, n);
    const firstAlone = fitMessages([messages[0] as Envelope]).text.length;
    if (firstAlone <= LIMITS.maxResultChars) assert.ok(fitted.text.length <= LIMITS.maxResultChars);
  }
});

test('a single 48 KiB message is returned whole, under the 50,000-character threshold', () => {
  const fitted = fitMessages([msg(1, 'z'.repeat(48 * 1024)), msg(2, 'next')]);
  assert.equal(fitted.included.length, 1);
  assert.equal(fitted.remaining, 1);
  assert.ok(fitted.text.includes('z'.repeat(48 * 1024)));
  assert.ok(fitted.text.length < 50_000, `${fitted.text.length}`);
});

test('history keeps the newest lines that fit and says how many were left out', () => {
  const lines = Array.from({ length: 200 }, (_, i) => `[line ${i}] ${'h'.repeat(400)}`);
  const text = fitLines(lines);
  assert.ok(text.length <= LIMITS.maxResultChars);
  const kept = text.split('\n').filter((l) => l.startsWith('[line '));
  assert.equal(kept.at(-1)?.startsWith('[line 199]'), true);
  const leftOut = 200 - kept.length;
  assert.ok(leftOut > 0);
  assert.match(text, new RegExp(`^\\(${leftOut} earlier lines left out`));
});

test('history cuts a single line that alone exceeds the budget', () => {
  const text = fitLines([`[huge] ${'q'.repeat(60_000)}`], LIMITS.maxResultChars, 'notice');
  assert.ok(text.length <= LIMITS.maxResultChars);
  assert.match(text, /more characters cut from this line\]$/);
  assert.ok(text.startsWith('notice\n[huge] '));
});

test('status keeps every member line in order when all fit', () => {
  const members = [
    { line: '- b (agent): offline', online: false },
    { line: '- a (agent): online, link: direct', online: true },
  ];
  assert.equal(
    fitStatus(['head'], members, ['tail']),
    'head\n- b (agent): offline\n- a (agent): online, link: direct\ntail',
  );
});

test('property: status never exceeds the cap, keeps head and tail, and prefers online members', () => {
  fc.assert(
    fc.property(
      fc.array(fc.record({ size: fc.nat({ max: 400 }), online: fc.boolean() }), { maxLength: 300 }),
      fc.integer({ min: 2000, max: 40_000 }),
      (specs, budget) => {
        const members = specs.map((m, i) => ({ line: `- m${i}: ${'x'.repeat(m.size)}`, online: m.online }));
        const text = fitStatus(['head line'], members, ['tail line'], budget);
        assert.ok(text.length <= budget, `${text.length} > ${budget}`);
        assert.ok(text.startsWith('head line\n') && text.endsWith('\ntail line'));
        const shown = members.filter((m) => text.includes(`\n${m.line}\n`));
        if (shown.length < members.length) {
          assert.match(text, /more members? not shown/);
          // An offline member is shown only if every online one is.
          if (shown.some((m) => !m.online)) assert.ok(members.every((m) => !m.online || shown.includes(m)));
        }
      },
    ),
  );
});

test('a single message whose escapes would pass 50,000 characters is cut under it, with a note (ADR 0059)', () => {
  // 48 KiB of ESC: each becomes the 4-character escape \x1b.
  const hostile = msg(1, '\u001b'.repeat(LIMITS.maxMessageBytes));
  const many = fitMessages([hostile, msg(2, 'next')]);
  assert.ok(many.text.length <= LIMITS.maxSingleMessageResultChars, `${many.text.length}`);
  assert.deepEqual(
    many.included.map((m) => m.id),
    [hostile.id],
  );
  assert.match(many.text, /more characters of this message cut, to keep this result readable/);
  assert.match(many.text, /1 more unread message did not fit/);
  // 24,576 empty lines: each indented by two spaces.
  const lines = fitMessages([msg(3, `a${'\n'.repeat(24_000)}b`)]);
  assert.ok(lines.text.length <= LIMITS.maxSingleMessageResultChars);
  // A plain 48 KiB body is never cut.
  const plain = fitMessages([msg(4, 'x'.repeat(LIMITS.maxMessageBytes))]);
  assert.doesNotMatch(plain.text, /cut/);
});
