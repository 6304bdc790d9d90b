// papo new against a server that wants a pin and a token (what `papo signal --public` runs): a
// plain URL, or one with the pin but no token, is refused before anything is written, with the
// way out (the line the server printed); the whole address makes the room; --no-check makes it
// anyway. A real papo signal server with TLS from a self-signed certificate, on loopback.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { certificatePin } from '../../src/signal-protocol.js';
import { startSignalServer } from '../../src/signal-server/server.js';
import { tempDir } from '../support/files.js';
import { cleanEnv, runPapo } from '../support/papo.js';
import { localhostCert } from '../support/tls-cert.js';

const TOKEN = 'new-check-token-not-a-real-one';

test("papo new refuses an address its server would refuse every member for (no pin, no token), with the server's line as the way out; the whole address or --no-check makes the room", {
  timeout: 60_000,
}, async (t) => {
  const dir = tempDir(t, 'papo-new-check-');
  const pair = localhostCert(dir);
  const spki = new X509Certificate(readFileSync(pair.cert)).publicKey.export({ type: 'spki', format: 'der' });
  const pin = certificatePin(spki);
  const server = await startSignalServer({
    host: '127.0.0.1',
    port: 0,
    env: {},
    config: { tls: { certFile: pair.cert, keyFile: pair.key }, token: TOKEN },
  });
  t.after(() => server.close());
  const url = `wss://localhost:${server.port}`;
  const homeOf = (name: string) => join(dir, name);
  const made = (name: string) => existsSync(join(homeOf(name), 'profiles', 'default', 'profile.json'));
  const papoNew = (name: string, args: string[], lang = 'en') =>
    runPapo(['new', '--name', 'ana', ...args], {
      env: cleanEnv({ PAPO_HOME: homeOf(name), PAPO_LANG: lang }),
    });

  const plain = await papoNew('plain', ['--signal', url]);
  assert.equal(plain.code, 1);
  assert.equal(
    plain.stderr,
    `error: the signal server ${url} has a certificate of its own, and this address does not carry its pin (nor, likely, its token): every member would be refused. Run the papo new --signal '…' line that papo signal --public printed on the server (papo signal --public ADDR prints it again); nothing was created\n`,
  );
  assert.equal(made('plain'), false, 'nothing written');

  const pt = await papoNew('pt', ['--signal', url], 'pt');
  assert.equal(pt.code, 1);
  assert.match(pt.stderr, /^erro: o servidor de sinalização .* não traz o pin dele .*nada foi criado\n$/);

  const pinOnly = await papoNew('pin-only', ['--signal', `${url}/#pin=${pin}`]);
  assert.equal(pinOnly.code, 1);
  assert.match(
    pinOnly.stderr,
    /wants a token, and this address carries none: every member would be refused\./,
  );
  assert.ok(!pinOnly.stderr.includes(pin.slice(7)), 'the pin is not repeated');
  assert.equal(made('pin-only'), false);

  const whole = await papoNew('whole', ['--signal', `${url}/#pin=${pin}&token=${TOKEN}`]);
  assert.equal(whole.code, 0, whole.stderr);
  assert.equal(made('whole'), true);
  assert.ok(!whole.stdout.includes(TOKEN) && !whole.stderr.includes(TOKEN), 'the token is never printed');

  const unchecked = await papoNew('unchecked', ['--signal', url, '--no-check']);
  assert.equal(unchecked.code, 0, unchecked.stderr);
  assert.equal(made('unchecked'), true);
});
