// The text as a reader sees it (src/client/wire/reader-view.ts, ADR 0061, 0095): the one
// normalisation that send's credential refusal and the review gate's hold patterns match with.
// Each step on its own, and what it leaves alone.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readerView } from '../../src/client/wire/reader-view.js';

test('ASCII comes out as it went in, whatever it holds', () => {
  for (const text of ['', 'rm -rf build/', 'a\tb\nc', '~!@#$%^&*()_+{}|:"<>?`-=[]\\;\',./', '\u0000\u007f'])
    assert.equal(readerView(text), text);
});

test('tag characters become the ASCII they shadow; compatibility forms and marks fold; invisible characters go', () => {
  assert.equal(readerView('\u{e0072}\u{e006d} -rf'), 'rm -rf');
  assert.equal(readerView('\uff52\uff4d -rf'), 'rm -rf');
  assert.equal(readerView('\u217Durl'), 'curl');
  assert.equal(readerView('\u{1d411}\u{1d40c}'), 'RM');
  assert.equal(readerView('r\u0301m'), 'rm');
  for (const invisible of [
    '\u200b',
    '\u200c',
    '\u200d',
    '\u2060',
    '\u00ad',
    '\ufeff',
    '\u202e',
    '\ufe0f',
    '\u3164',
  ])
    assert.equal(readerView(`r${invisible}m`), 'rm', `U+${invisible.codePointAt(0)?.toString(16)}`);
});

test('look-alikes fold to the Latin letters they are drawn as; dashes, connectors and the braille blank too', () => {
  assert.equal(readerView('\u0441url'), 'curl');
  assert.equal(readerView('\u0421URL'), 'CURL');
  assert.equal(readerView('\u03bf\u0585'), 'oo');
  assert.equal(readerView('\u0417'), '3');
  // Every pair of the table: both ends of it (the first and the last pair) are read.
  assert.equal(readerView('\u0430'), 'a');
  assert.equal(readerView('\u01c0'), 'l');
  assert.equal(readerView('rm \u2014rf \u2212x'), 'rm -rf -x');
  assert.equal(readerView('a\u203fb\uff3fc'), 'a_b_c');
  assert.equal(readerView('rm\u2800-rf'), 'rm -rf');
});

test('what a reader does not take for another character stays as it is', () => {
  for (const kept of ['\u0436', '\u4e2d', '\u2192', '\u00e6', '\u00a9', '\u{1f600}'])
    assert.equal(readerView(`a${kept}b`), `a${kept}b`, `U+${kept.codePointAt(0)?.toString(16)}`);
  // Non-ASCII white space stays white space (NFKD makes the no-break space a plain one).
  assert.equal(readerView('a\u00a0b'), 'a b');
  assert.equal(readerView('a\u3000b'), 'a b');
});
