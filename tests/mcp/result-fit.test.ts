import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Envelope } from '../../src/client/wire/messages.js';
import { formatMessage, MESSAGE_SEPARATOR } from '../../src/mcp/message-format.js';
import { fitLines, fitMessages, fitStatus } from '../../src/mcp/result-fit.js';
import {
  historyLeftOut,
  LIMITS,
  lineCut,
  messageCut,
  moreUnread,
  statusMoreMembers,
  UNTRUSTED_NOTICE,
} from '../../src/mcp/texts.js';

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

// Exact edges (mutation testing, ADR 0080): the properties above hold for many fits that are not
// the right one (an empty status, a trailer reserved for nothing); these say which one is right.
const SEP = MESSAGE_SEPARATOR.length;
const N = UNTRUSTED_NOTICE.length;
const blockOf = (m: Envelope) => formatMessage(m).length;

test('fitMessages: no messages is a caller error', () => {
  assert.throws(() => fitMessages([]), {
    name: 'RangeError',
    message: 'fitMessages needs at least one message',
  });
});

test('fitMessages: the last message needs no room for a trailer; a message before others does', () => {
  const [a, b, c] = [msg(1, 'a'.repeat(500)), msg(2, 'b'.repeat(700)), msg(3, 'c'.repeat(900))];
  const both = N + SEP + blockOf(a) + SEP + blockOf(b);
  // Exactly the budget: both fit, nothing remains, and the text is exactly that long.
  const exact = fitMessages([a, b], both);
  assert.equal(exact.remaining, 0);
  assert.equal(exact.text.length, both);
  // One character less: the second waits, and the trailer that says so fits.
  const short = fitMessages([a, b], both - 1);
  assert.deepEqual([short.included.length, short.remaining], [1, 1]);
  assert.ok(short.text.endsWith(moreUnread(1)));
  // With a third after them, the second is kept only if the trailer for the rest fits too.
  const trailer = SEP + moreUnread(3).length;
  const two = fitMessages([a, b, c], both + trailer);
  assert.deepEqual([two.included.length, two.remaining], [2, 1]);
  assert.ok(two.text.length <= both + trailer);
  const one = fitMessages([a, b, c], both + trailer - 1);
  assert.deepEqual([one.included.length, one.remaining], [1, 2]);
});

test('fitMessages: only the first message is ever cut, whatever the budget', () => {
  const big = [msg(1, 'p'.repeat(30_000)), msg(2, 'q'.repeat(30_000))];
  const fitted = fitMessages(big, 100_000);
  assert.equal(fitted.included.length, 2);
  assert.ok(fitted.text.includes('q'.repeat(30_000)));
  assert.doesNotMatch(fitted.text, /cut/);
});

/** The room cutAlone has for the first message alone: what a result may hold after the notice. */
const ROOM = LIMITS.maxSingleMessageResultChars - N;

test('fitMessages: a first message that fills its room exactly is whole; one character more is cut', () => {
  const overhead = blockOf(msg(1, ''));
  const whole = msg(1, 'w'.repeat(ROOM - SEP - overhead));
  assert.equal(blockOf(whole) + SEP, ROOM);
  const fitted = fitMessages([whole]);
  assert.doesNotMatch(fitted.text, /cut/);
  assert.equal(fitted.text.length, LIMITS.maxSingleMessageResultChars);
  const over = msg(1, 'w'.repeat(ROOM - SEP - overhead + 1));
  const cut = fitMessages([over]);
  const keep = ROOM - SEP - messageCut(blockOf(over)).length;
  assert.ok(cut.text.endsWith(messageCut(blockOf(over) - keep)));
  assert.ok(cut.text.length <= LIMITS.maxSingleMessageResultChars);
});

/**
 * A first message long enough to be cut (12,000 escapes make 48,000 characters), then `pad` x's,
 * `ab` and emoji: a `pad` for which `around(block, keep)` holds, where `keep` is where the cut falls
 * if no pair is split. The pads tried put the cut just before, on or after `ab`, or in the emoji.
 */
function cutCase(
  around: (block: string, keep: number) => boolean,
  pair = '😀',
): { m: Envelope; block: string; keep: number } {
  const make = (pad: number) => msg(1, `${'\u001b'.repeat(12_000)}${'x'.repeat(pad)}ab${pair.repeat(4000)}`);
  const first = formatMessage(make(0));
  const ab = first.indexOf('ab');
  const at = ROOM - SEP - messageCut(first.length).length;
  for (const pad of [0, 1, 2, at - ab - 2, at - ab - 1, at - ab, at - ab + 1]) {
    if (pad < 0) continue;
    const m = make(pad);
    const block = formatMessage(m);
    const keep = ROOM - SEP - messageCut(block.length).length;
    if (around(block, keep)) return { m, block, keep };
  }
  throw new Error('no such case');
}
const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

test('fitMessages: a cut never splits a surrogate pair, and moves back only for one', () => {
  // The cut would fall between the two halves of an emoji: it moves back one character.
  const split = cutCase((block, keep) => isHigh(block.charCodeAt(keep - 1)));
  const fitted = fitMessages([split.m]);
  assert.doesNotMatch(fitted.text, LONE_SURROGATE);
  assert.ok(fitted.text.endsWith(messageCut(split.block.length - (split.keep - 1))));
  // The cut falls after plain letters, with an emoji two characters on: it stays where it is.
  const plain = cutCase(
    (block, keep) => block[keep - 1] === 'a' && block[keep] === 'b' && isHigh(block.charCodeAt(keep + 1)),
  );
  assert.ok(fitMessages([plain.m]).text.endsWith(messageCut(plain.block.length - plain.keep)));
  // The cut falls just after a whole pair (its low half): it stays where it is.
  const after = cutCase((block, keep) => isHigh(block.charCodeAt(keep - 2)));
  assert.ok(fitMessages([after.m]).text.endsWith(messageCut(after.block.length - after.keep)));
  // The first and the last high halves there are (U+10000 and U+10FFFD begin with D800 and DBFF).
  for (const pair of ['\u{10000}', '\u{10fffd}']) {
    const edge = cutCase((block, keep) => isHigh(block.charCodeAt(keep - 1)), pair);
    const text = fitMessages([edge.m]).text;
    assert.doesNotMatch(text, LONE_SURROGATE);
    assert.ok(text.endsWith(messageCut(edge.block.length - (edge.keep - 1))));
  }
});

test('fitLines: the newest lines that fit exactly, the first one too, with its prefix counted', () => {
  const prefix = 'p'.repeat(100);
  const lines = Array.from({ length: 50 }, (_, i) => `${String(i).padStart(2, '0')}${'l'.repeat(98)}`);
  const room = 3000 - (prefix.length + 1) - `${historyLeftOut(50)}\n`.length;
  const fit = Math.floor((room + 1) / 101); // k lines of 100 take 101k - 1
  const text = fitLines(lines, 3000, prefix);
  assert.ok(text.length <= 3000);
  assert.equal(text, `${prefix}\n${historyLeftOut(50 - fit)}\n${lines.slice(50 - fit).join('\n')}`);
  // A room with 100 characters to spare after the lines that fit: the next line (100 characters and
  // its newline) still does not fit.
  const spareBudget = 20 * 101 - 1 + 100 + (prefix.length + 1) + `${historyLeftOut(50)}\n`.length;
  assert.equal(
    fitLines(lines, spareBudget, prefix),
    `${prefix}\n${historyLeftOut(30)}\n${lines.slice(30).join('\n')}`,
  );
  // A single line of exactly the room is kept whole; one character more is cut.
  const roomOne = 3000 - (prefix.length + 1) - `${historyLeftOut(1)}\n`.length;
  const one = 'z'.repeat(roomOne);
  assert.equal(fitLines([one], 3000, prefix), `${prefix}\n${one}`);
  const longer = `${one}z`;
  const keep = roomOne - lineCut(longer.length).length - 16;
  assert.equal(
    fitLines([longer], 3000, prefix),
    `${prefix}\n${longer.slice(0, keep)}${lineCut(longer.length - keep)}`,
  );
});

test('fitStatus: all members when all fit exactly; else online first, as many as fit, then the count', () => {
  const line = (name: string) => `- ${name} ${'x'.repeat(60)}`;
  const members = [
    { line: line('off1'), online: false },
    { line: line('on_1'), online: true },
    { line: line('off2'), online: false },
    { line: line('on_2'), online: true },
  ];
  const all = ['head', ...members.map((m) => m.line), 'tail'].join('\n');
  assert.equal(fitStatus(['head'], members, ['tail'], all.length), all);
  // One character less: online first, then offline, as many as fit, then how many were not shown.
  const budget = all.length - 1;
  const room = budget - 'head\n'.length - 'tail\n'.length - statusMoreMembers(4).length - 1;
  const order = [line('on_1'), line('on_2'), line('off1'), line('off2')];
  const fit = Math.floor(room / (line('on_1').length + 1));
  assert.ok(fit > 0 && fit < 4, `${fit}`);
  assert.equal(
    fitStatus(['head'], members, ['tail'], budget),
    ['head', ...order.slice(0, fit), statusMoreMembers(4 - fit), 'tail'].join('\n'),
  );
  // A budget that holds the two online members exactly, and not one character more.
  const two =
    'head\n'.length + 'tail\n'.length + statusMoreMembers(4).length + 1 + 2 * (line('on_1').length + 1);
  assert.equal(
    fitStatus(['head'], members, ['tail'], two),
    ['head', line('on_1'), line('on_2'), statusMoreMembers(2), 'tail'].join('\n'),
  );
  assert.equal(
    fitStatus(['head'], members, ['tail'], two - 1),
    ['head', line('on_1'), statusMoreMembers(3), 'tail'].join('\n'),
  );
  // Online first, then the offline ones in their order, each once, whatever the order given.
  const long = (name: string) => `- ${name} ${'x'.repeat(200)}`;
  const mixed = [
    { line: long('on_1'), online: true },
    { line: long('off1'), online: false },
    { line: long('on_2'), online: true },
    { line: long('off2'), online: false },
  ];
  const three =
    'head\n'.length + 'tail\n'.length + statusMoreMembers(4).length + 1 + 3 * (long('on_1').length + 1);
  assert.equal(
    fitStatus(['head'], mixed, ['tail'], three),
    ['head', long('on_1'), long('on_2'), long('off1'), statusMoreMembers(1), 'tail'].join('\n'),
  );
});
