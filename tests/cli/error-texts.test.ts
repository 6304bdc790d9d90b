// The contract of errors that carry data (ADR 0086): every code with `detail` renders in English
// and in Portuguese, and the Portuguese text is built from the data alone — an English message
// reworded cannot change it, nor make it fall back to English.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { errorText, type Lang } from '../../src/cli/i18n.js';
import { reviewTexts } from '../../src/cli/review-texts.js';
import { attachRefused } from '../../src/client/attach/project-path.js';
import { type CodeWithDetail, isPapoError, messageOf, PapoError } from '../../src/client/errors.js';
import { parseSignalTokens, signalTokenFor } from '../../src/client/net/signal-token.js';
import { linkedFileError } from '../../src/client/store/no-follow.js';
import { compilePattern } from '../../src/client/store/review.js';
import { decodeInvite, encodeInvite } from '../../src/client/wire/invite.js';
import { parseSignalUrl } from '../../src/client/wire/signal-url.js';

/** The error `run` throws, which must be a PapoError of `code`. */
function thrown<C extends CodeWithDetail>(code: C, run: () => unknown): PapoError<C> {
  try {
    run();
  } catch (err) {
    if (isPapoError(err, code)) return err;
    throw new Error(`expected PapoError ${code}, got ${messageOf(err)}`);
  }
  throw new Error(`expected PapoError ${code}, nothing thrown`);
}

const TOKEN = 'test-token-not-secret';
/** A pin of the right shape (32 zero bytes). */
const PIN = `sha256/${'A'.repeat(43)}`;

/**
 * Each code with data, each of its kinds, as the code that raises it raises it (a Record: a code
 * added to PapoErrorDetails without a sample here does not compile).
 */
const SAMPLES: { [C in CodeWithDetail]: PapoError<C>[] } = {
  invalid_invite: [
    thrown('invalid_invite', () => decodeInvite('hello')),
    thrown('invalid_invite', () => decodeInvite('papo1abc')),
    // A sound invite whose signal URL is not one.
    thrown('invalid_invite', () =>
      decodeInvite(encodeInvite(new Uint8Array(32), 'ftp://signal.example.test')),
    ),
    // A sound invite whose signal address has a fragment papo refuses (ADR 0089).
    thrown('invalid_invite', () =>
      decodeInvite(encodeInvite(new Uint8Array(32), 'wss://signal.example.test/#pin=sha256/short')),
    ),
  ],
  invalid_signal_url: [
    thrown('invalid_signal_url', () => parseSignalUrl('nope', 'PAPO_SIGNAL')),
    thrown('invalid_signal_url', () => parseSignalUrl('ftp://x', '--signal')),
    thrown('invalid_signal_url', () => parseSignalUrl('nope', 'invite')),
    // The fragment's problems (ADR 0089), one of each.
    thrown('invalid_signal_url', () =>
      parseSignalUrl(`wss://signal.example.test/#pin=${PIN}&pin=${PIN}`, '--signal'),
    ),
    thrown('invalid_signal_url', () =>
      parseSignalUrl(`wss://signal.example.test/#token=${TOKEN}&token=${TOKEN}`, 'PAPO_SIGNAL'),
    ),
    thrown('invalid_signal_url', () =>
      parseSignalUrl('wss://signal.example.test/#pin=sha256/short', 'invite'),
    ),
    thrown('invalid_signal_url', () => parseSignalUrl('wss://signal.example.test/#token=a%20b', '--signal')),
    thrown('invalid_signal_url', () =>
      parseSignalUrl(`wss://signal.example.test/#secret=${TOKEN}`, '--signal'),
    ),
    thrown('invalid_signal_url', () => parseSignalUrl(`ws://signal.example.test/#pin=${PIN}`, 'PAPO_SIGNAL')),
    thrown('invalid_signal_url', () => parseSignalUrl(`ws://signal.example.test/#token=${TOKEN}`, 'invite')),
  ],
  invalid_signal_token: [
    thrown('invalid_signal_token', () => parseSignalTokens(`${TOKEN}-1,${TOKEN}-2`)),
    thrown('invalid_signal_token', () => parseSignalTokens('wss://signal.example.test=')),
    thrown('invalid_signal_token', () =>
      parseSignalTokens(`wss://signal.example.test=${TOKEN}-1 wss://signal.example.test=${TOKEN}-2`),
    ),
    thrown('invalid_signal_token', () => parseSignalTokens(`ws://signal.example.test=${TOKEN}`)),
    thrown('invalid_signal_token', () =>
      signalTokenFor('wss://signal.example.test:8443/papo', { PAPO_SIGNAL_TOKEN: TOKEN }),
    ),
    thrown('invalid_signal_token', () =>
      signalTokenFor('ws://signal.example.test', { PAPO_SIGNAL_TOKEN: TOKEN }),
    ),
    thrown('invalid_signal_token', () => parseSignalTokens(`wss://signal.example.test/papo=${TOKEN}`)),
  ],
  profile_link: [
    linkedFileError('/home/ana/.papo/default/peers.json', 'symbolic'),
    linkedFileError('/home/ana/.papo/default/log.jsonl', 'hard'),
  ],
  attach_refused: (['not_found', 'link', 'folder', 'not_file', 'outside', 'unreadable', 'changed'] as const)
    .map((problem) => attachRefused({ problem, path: 'docs/spec.json' }))
    .concat([
      attachRefused({ problem: 'too_large', path: 'docs/spec.json', size: 17_000_000, limit: 16_777_216 }),
    ]),
  invalid_pattern: [
    thrown('invalid_pattern', () => compilePattern('x'.repeat(201))),
    thrown('invalid_pattern', () => compilePattern('**')),
  ],
  listen_failed: [
    new PapoError('listen_failed', 'that address and port are already in use (another signal server?)', {
      detail: { listener: 'signal', errno: 'EADDRINUSE' },
    }),
    new PapoError('listen_failed', 'permission denied to listen on that port', {
      detail: { listener: 'signal', errno: 'EACCES' },
    }),
    new PapoError(
      'listen_failed',
      'the metrics address 127.0.0.1:9 (PAPO_SIGNAL_METRICS): EADDRINUSE is in use: set PAPO_SIGNAL_METRICS to another address, or off',
      {
        detail: {
          listener: 'metrics',
          address: '127.0.0.1:9',
          errno: 'EADDRINUSE',
          reason: 'listen EADDRINUSE',
        },
      },
    ),
  ],
};

/** What a person reads for the error: the CLI's one mapper, or the review command's own text. */
function rendered(err: PapoError<CodeWithDetail>, lang: Lang): string {
  if (isPapoError(err, 'invalid_pattern')) {
    return reviewTexts(lang).badPattern('x', err.detail.problem === 'too_long');
  }
  return errorText(err, lang);
}

/** The same code and data under another English message. */
function reworded<C extends CodeWithDetail>(err: PapoError<C>): PapoError<C> {
  const Raw = PapoError as new (code: C, message: string, options: { detail: unknown }) => PapoError<C>;
  return new Raw(err.code, 'an English message worded some other way', { detail: err.detail });
}

test('every code with data has a sample of each of its kinds', () => {
  const kinds = (code: CodeWithDetail) =>
    new Set(SAMPLES[code].map((e) => JSON.stringify(Object.values(e.detail as object).slice(0, 1))));
  assert.equal(kinds('invalid_invite').size, 4);
  assert.equal(kinds('invalid_signal_url').size, 3);
  assert.deepEqual(
    new Set(SAMPLES.invalid_signal_url.map((e) => e.detail.fragment?.problem)),
    new Set([
      undefined,
      'two_pins',
      'two_tokens',
      'pin_shape',
      'token_shape',
      'unknown_part',
      'pin_without_tls',
      'token_in_clear',
    ]),
  );
  assert.deepEqual(
    new Set(SAMPLES.invalid_signal_token.map((e) => e.detail.problem)),
    new Set(['bare_twice', 'no_token', 'two_tokens', 'in_clear', 'bare_unbound', 'not_origin']),
  );
});

test('every code with data renders in English and in Portuguese, the Portuguese from the data alone', () => {
  for (const [code, samples] of Object.entries(SAMPLES) as [CodeWithDetail, PapoError<CodeWithDetail>[]][]) {
    for (const err of samples) {
      const en = rendered(err, 'en');
      const pt = rendered(err, 'pt');
      const what = `${code} ${JSON.stringify(err.detail)}`;
      assert.ok(en.length > 0 && pt.length > 0, what);
      assert.notEqual(pt, en, `${what}: the Portuguese text is the English one`);
      assert.equal(rendered(reworded(err), 'pt'), pt, `${what}: the Portuguese text depends on the English`);
      // The facts a person acts on (an origin, a path, an address) are in both texts.
      for (const key of ['origin', 'shown', 'path', 'address'] as const) {
        const value = (err.detail as Partial<Record<typeof key, string>>)[key];
        if (value === undefined) continue;
        assert.ok(en.includes(value), `${what}: English lacks ${value}`);
        assert.ok(pt.includes(value), `${what}: Portuguese lacks ${value}`);
      }
    }
  }
});

test('a code with data cannot be raised without it, and a code without data carries none', () => {
  // @ts-expect-error: 'profile_link' carries its path
  const bare = new PapoError('profile_link', 'x is a symbolic link');
  assert.equal(bare.detail, undefined);
  const plain = new PapoError('profile_locked', 'locked', { cause: new Error('held') });
  assert.equal(plain.detail, undefined);
  assert.equal(messageOf(plain.cause), 'held');
});

test('messageOf: an Error gives its message, anything else its string form', () => {
  assert.equal(messageOf(new RangeError('out of range')), 'out of range');
  assert.equal(messageOf('plain text'), 'plain text');
  assert.equal(messageOf(42), '42');
  assert.equal(messageOf(undefined), 'undefined');
});
