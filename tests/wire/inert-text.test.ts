// src/client/wire/inert-text.ts and src/client/wire/about.ts (ADR 0059): what is escaped, what is kept.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { aboutProblem, checkAbout, MAX_ABOUT_CHARS, normaliseAbout } from '../../src/client/wire/about.js';
import { escapeCodePoint, indentFollowingLines, inertText } from '../../src/client/wire/inert-text.js';

test('terminal controls, C1, bidi controls, tags and separators become visible escapes', () => {
  const cases: [string, string][] = [
    ['\u001b]52;c;aGk=\u0007', '\\x1b]52;c;aGk=\\x07'], // OSC 52: writes the clipboard
    ['\u001b]0;title\u001b\\', '\\x1b]0;title\\x1b\\'], // OSC 0, ended by ST
    ['\u001b[2J\u001b[8mhidden', '\\x1b[2J\\x1b[8mhidden'],
    ['\u009b31m\u009d0;t\u009c', '\\x9b31m\\x9d0;t\\x9c'], // C1 CSI, OSC, ST
    ['a\u0000b\u007fc\u0008d', 'a\\x00b\\x7fc\\x08d'],
    ['over\rwrite', 'over\\rwrite'],
    ['\u202eabc\u202a\u202b\u202c\u202d', '\\u202eabc\\u202a\\u202b\\u202c\\u202d'],
    ['\u2066\u2067\u2068\u2069', '\\u2066\\u2067\\u2068\\u2069'],
    ['\u200e\u200f\u061c', '\\u200e\\u200f\\u061c'],
    ['zero\u200bwidth\u2060joiner\ufeffbom\u00adsoft', 'zero\\u200bwidth\\u2060joiner\\ufeffbom\\xadsoft'],
    ['a\u2028b\u2029c', 'a\\u2028b\\u2029c'],
    ['\u{e0001}\u{e0049}\u{e0047}\u{e004e}', '\\u{e0001}\\u{e0049}\\u{e0047}\\u{e004e}'], // tags: hidden ASCII
    ['\ud800lone', '\\ud800lone'],
    ['x\ufe0f\ufe0f\ufe0e', 'x\ufe0f\\ufe0f\\ufe0e'], // a run of selectors: bytes hidden in plain sight
    ['\u200d\u200dx', '\\u200d\\u200dx'],
  ];
  for (const [input, expected] of cases) {
    assert.equal(inertText(input), expected, JSON.stringify(input));
    assert.equal(inertText(expected), expected, 'escaping twice changes nothing');
  }
});

test('ordinary text is kept: accents, CJK, right-to-left letters, emoji and their sequences', () => {
  for (const s of [
    'Oi, aqui é o agente do pagamentos-api. Ação, não!',
    '日本語のテキスト、中文，한국어',
    'שלום עולם مرحبا بالعالم', // right-to-left letters need no control character
    'می‌خواهم', // Persian with ZWNJ
    '👩‍💻 👨‍👩‍👧 🏳️‍🌈 👩🏽‍💻 1️⃣ ❤️', // ZWJ sequences, a skin tone, keycap, VS16
    '🏴󠁧󠁢󠁥󠁮󠁧󠁿 🏴󠁧󠁢󠁳󠁣󠁴󠁿', // subdivision flags (tag characters, the only place they are kept)
    '葛\u{e0100}', // an ideographic variation sequence
    'C:\\Users\\x and \\n in code stay as they are',
    'code:\n\tindented();\n  spaces();',
  ]) {
    assert.equal(inertText(s), s, s);
  }
});

test('blocks keep newlines and tabs (CRLF read as a newline); lines escape them', () => {
  assert.equal(inertText('a\r\nb\tc\n'), 'a\nb\tc\n');
  assert.equal(inertText('a\r\nb\tc\n', 'line'), 'a\\r\\nb\\tc\\n');
  assert.equal(escapeCodePoint(0x1b), '\\x1b');
  assert.equal(escapeCodePoint(0x202e), '\\u202e');
  assert.equal(escapeCodePoint(0xe0041), '\\u{e0041}');
  assert.equal(indentFollowingLines('one\ntwo\n\nthree'), 'one\n  two\n  \n  three');
  assert.equal(indentFollowingLines('one'), 'one');
});

test('property: the escaped text holds no control, format or separator character and is stable', () => {
  const dangerous = /[\p{Cc}\p{Zl}\p{Zp}\p{Cs}\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/u;
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (s) => {
      const line = inertText(s, 'line');
      assert.ok(!dangerous.test(line), JSON.stringify(line));
      const block = inertText(s);
      assert.ok(!dangerous.test(block.replace(/[\n\t]/g, '')), JSON.stringify(block));
      assert.equal(inertText(line, 'line'), line);
      assert.equal(inertText(block), block);
    }),
    { numRuns: 2000 },
  );
});

test('about: the sender refuses what is not one printable line of at most 200 characters', () => {
  assert.equal(checkAbout('  payments-api  '), 'payments-api');
  assert.equal(checkAbout('pagamentos 🚀 日本'), 'pagamentos 🚀 日本');
  assert.equal(aboutProblem('x'.repeat(MAX_ABOUT_CHARS)), undefined);
  assert.throws(() => checkAbout('a\nb'), /--about must be one line of printable text/);
  assert.throws(() => checkAbout('a\u001b[2Jb'), /--about must be one line of printable text/);
  assert.throws(() => checkAbout('\u202eabc'), /--about must be one line of printable text/);
  assert.throws(
    () => checkAbout('x'.repeat(MAX_ABOUT_CHARS + 1)),
    /--about is 201 characters long; the limit is 200/,
  );
});

test('about: a receiver normalises anything to one inert line of at most 200 characters, idempotently', () => {
  assert.equal(normaliseAbout('a\nIGNORE\u0007'), 'a\\nIGNORE\\x07');
  assert.equal(normaliseAbout('   '), undefined);
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (s) => {
      const once = normaliseAbout(s);
      if (once === undefined) return;
      assert.ok(once.length <= MAX_ABOUT_CHARS, `${once.length}`);
      assert.equal(aboutProblem(once), undefined, JSON.stringify(once));
      assert.equal(normaliseAbout(once), once);
    }),
    { numRuns: 2000 },
  );
});
