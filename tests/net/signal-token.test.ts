// PAPO_SIGNAL_TOKEN on the member's side (ADR 0060): tokens bound to their server's origin, a bare
// token only for PAPO_SIGNAL, never in clear to another machine; errors name origins, never tokens.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isPapoError } from '../../src/client/errors.js';
import { bareHost, isLoopbackHost } from '../../src/client/hosts.js';
import {
  parseSignalTokens,
  signalOrigin,
  signalTokenFor,
  tokenMayTravel,
} from '../../src/client/net/signal-token.js';

const TOKEN = 'test-token-not-secret';

test('origins are compared by scheme, host and port, with http(s) folded into ws(s) and default ports dropped', () => {
  assert.equal(signalOrigin('wss://Signal.Example.TEST'), 'wss://signal.example.test');
  assert.equal(signalOrigin('wss://signal.example.test:443/papo'), 'wss://signal.example.test');
  assert.equal(signalOrigin('https://signal.example.test/'), 'wss://signal.example.test');
  assert.equal(signalOrigin('http://127.0.0.1:80'), 'ws://127.0.0.1');
  assert.equal(signalOrigin('ws://127.0.0.1:7450/v1/ws?peer=ab'), 'ws://127.0.0.1:7450');
  assert.equal(signalOrigin('wss://signal.example.test:8443'), 'wss://signal.example.test:8443');
  assert.equal(signalOrigin('ws://[::1]:7450'), 'ws://[::1]:7450');
  assert.notEqual(signalOrigin('ws://signal.example.test'), signalOrigin('wss://signal.example.test'));
});

test('a token may travel over TLS, or in clear to this machine only', () => {
  for (const host of ['localhost', '127.0.0.1', '127.1.2.3', '[::1]', '::1', 'LOCALHOST'])
    assert.ok(isLoopbackHost(host), host);
  for (const host of ['10.0.0.5', '192.168.1.2', 'signal.example.test', '127.0.0.1.example.test', '[::2]'])
    assert.ok(!isLoopbackHost(host), host);
  // Only a bracketed pair is a URL's IPv6 literal; a lone bracket is kept (and refused later).
  assert.equal(bareHost('[::1]'), '::1');
  assert.equal(bareHost('[example.test'), '[example.test');
  assert.equal(bareHost('example.test]'), 'example.test]');
  assert.ok(!isLoopbackHost('[::1'), '[::1');
  assert.ok(tokenMayTravel('wss://signal.example.test'));
  assert.ok(tokenMayTravel('https://10.0.0.5'));
  assert.ok(tokenMayTravel('ws://127.0.0.1:7450/v1/ws'));
  assert.ok(!tokenMayTravel('ws://10.0.0.5:7450/v1/ws'));
  assert.ok(!tokenMayTravel('http://signal.example.test'));
});

test('ORIGIN=TOKEN pairs, separated by spaces or commas, each go to their own origin only', () => {
  const env = {
    PAPO_SIGNAL_TOKEN: ` wss://a.example.test=${TOKEN}-a,https://b.example.test:8443=${TOKEN}-b==\nws://127.0.0.1:7450=${TOKEN}-c `,
  };
  assert.equal(signalTokenFor('wss://a.example.test/papo', env), `${TOKEN}-a`);
  assert.equal(signalTokenFor('wss://a.example.test:443', env), `${TOKEN}-a`);
  assert.equal(signalTokenFor('wss://b.example.test:8443', env), `${TOKEN}-b==`);
  assert.equal(signalTokenFor('http://127.0.0.1:7450', env), `${TOKEN}-c`);
  // Another origin gets nothing: another host, scheme or port.
  for (const url of [
    'wss://evil.example.test',
    'ws://a.example.test',
    'wss://a.example.test:8443',
    'wss://b.example.test',
    'ws://127.0.0.1:7451',
    'ws://localhost:7450',
  ])
    assert.equal(signalTokenFor(url, env), undefined, url);
  assert.equal(signalTokenFor('wss://a.example.test', {}), undefined);
  assert.equal(signalTokenFor('wss://a.example.test', { PAPO_SIGNAL_TOKEN: '  ' }), undefined);
});

test('a bare token goes to the origin of PAPO_SIGNAL only, and is refused without it', () => {
  const pinned = { PAPO_SIGNAL_TOKEN: TOKEN, PAPO_SIGNAL: 'wss://signal.example.test/papo' };
  assert.equal(signalTokenFor('wss://signal.example.test/papo', pinned), TOKEN);
  assert.equal(signalTokenFor('wss://other.example.test', pinned), undefined);
  // A pair for the same origin wins over the bare token.
  assert.equal(
    signalTokenFor('wss://signal.example.test', {
      ...pinned,
      PAPO_SIGNAL_TOKEN: `${TOKEN} wss://signal.example.test=${TOKEN}-pair`,
    }),
    `${TOKEN}-pair`,
  );
  assert.throws(
    () => signalTokenFor('wss://signal.example.test:8443/papo', { PAPO_SIGNAL_TOKEN: TOKEN }),
    (err: unknown) =>
      isPapoError(err, 'invalid_signal_token') &&
      err.message.includes('PAPO_SIGNAL_TOKEN=wss://signal.example.test:8443=TOKEN') &&
      !err.message.includes(TOKEN),
  );
  // For a room on ws:// to another machine the fix is TLS first.
  assert.throws(
    () => signalTokenFor('ws://10.0.0.5:7450', { PAPO_SIGNAL_TOKEN: TOKEN }),
    (err: unknown) =>
      isPapoError(err, 'invalid_signal_token') &&
      /server, ws:\/\/10\.0\.0\.5:7450, is plain ws:\/\/ on another machine.*put TLS in front of it/.test(
        err.message,
      ),
  );
});

test('a token bound to ws:// on another machine is refused, bare or paired', () => {
  const clear = (env: NodeJS.ProcessEnv) =>
    assert.throws(
      () => signalTokenFor('ws://10.0.0.5:7450', env),
      (err: unknown) =>
        isPapoError(err, 'invalid_signal_token') &&
        err.message.includes('binds a token to ws://10.0.0.5:7450') &&
        err.message.includes('never sends it') &&
        !err.message.includes(TOKEN),
    );
  clear({ PAPO_SIGNAL_TOKEN: `ws://10.0.0.5:7450=${TOKEN}` });
  clear({ PAPO_SIGNAL_TOKEN: `http://10.0.0.5:7450=${TOKEN}` });
  clear({ PAPO_SIGNAL_TOKEN: TOKEN, PAPO_SIGNAL: 'ws://10.0.0.5:7450' });
  // Even when this room is elsewhere: the setting itself is unsafe.
  assert.throws(
    () =>
      signalTokenFor('wss://signal.example.test', { PAPO_SIGNAL_TOKEN: `ws://signal.example.test=${TOKEN}` }),
    /travel in clear/,
  );
});

test('malformed values are refused without echoing a token', () => {
  const refused = (value: string, pattern: RegExp) =>
    assert.throws(
      () => parseSignalTokens(value),
      (err: unknown) =>
        isPapoError(err, 'invalid_signal_token') && pattern.test(err.message) && !err.message.includes(TOKEN),
    );
  refused(`${TOKEN}-1 ${TOKEN}-2`, /more than one token without a server/);
  refused('wss://signal.example.test', /names wss:\/\/signal\.example\.test without a token/);
  refused('wss://signal.example.test=', /without a token/);
  refused(`wss://signal.example.test/papo=${TOKEN}`, /not a server's origin/);
  refused(`wss://user@signal.example.test=${TOKEN}`, /not a server's origin/);
  refused(`ftp://signal.example.test=${TOKEN}`, /not a server's origin/);
  refused(`wss://a.example.test=${TOKEN}-1 wss://a.example.test:443=${TOKEN}-2`, /two different tokens/);
  assert.deepEqual(
    parseSignalTokens(`wss://a.example.test=${TOKEN} wss://A.example.test=${TOKEN}`).bound.size,
    1,
  );
});
