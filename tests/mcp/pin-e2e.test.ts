// The whole path of a pinned signal address (ADR 0089) with real components: a real papo signal
// server with TLS from a self-signed certificate made here and a required token; `papo new
// --signal '<address>'`, `papo join` (which asks the server at once), two real `papo mcp` that link
// and deliver without NODE_EXTRA_CA_CERTS; neither the pin nor the token in any output but the
// invite (stderr diagnostics, the agent's status, `papo status`, `papo doctor`); a man-in-the-middle
// with another key named as such by `papo join`; an old invite (no fragment) still joining.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { createServer as createTlsServer } from 'node:tls';
import { encodeInvite } from '../../src/client/wire/invite.js';
import { generateSecret } from '../../src/client/wire/room-crypto.js';
import { certificatePin } from '../../src/signal-protocol.js';
import { startSignalServer } from '../../src/signal-server/server.js';
import { startMcp, waitOnline } from '../member/helpers.js';
import { tempDir } from '../support/files.js';
import { cleanEnv, inviteIn, memberEnv, runPapo } from '../support/papo.js';
import { localhostCert } from '../support/tls-cert.js';
import { waitFor } from '../support/wait.js';

const TOKEN = 'e2e-pin-token-not-a-real-one';

function selfSigned(t: TestContext, label: string) {
  const files = localhostCert(tempDir(t, `papo-pin-e2e-${label}-`));
  const spki = new X509Certificate(readFileSync(files.cert)).publicKey.export({
    type: 'spki',
    format: 'der',
  });
  return { ...files, pin: certificatePin(spki) };
}

/** A real signal server on loopback with TLS from a self-signed certificate and TOKEN required. */
async function tlsSignalServer(t: TestContext, label: string) {
  const pair = selfSigned(t, label);
  const server = await startSignalServer({
    host: '127.0.0.1',
    port: 0,
    env: {},
    config: { tls: { certFile: pair.cert, keyFile: pair.key }, token: TOKEN },
  });
  t.after(() => server.close());
  return { pair, server };
}

/** Fails when `text` holds the token or the pin's hash (the part after "sha256/"). */
function clean(text: string, pin: string, what: string): void {
  assert.ok(!text.includes(TOKEN), `${what} shows the token:\n${text}`);
  assert.ok(!text.includes(pin.slice('sha256/'.length)), `${what} shows the pin:\n${text}`);
}

test('a pinned address: new, join, two papo mcp linking without a CA file, and no pin or token anywhere but the invite', {
  timeout: 120_000,
}, async (t) => {
  const { pair, server } = await tlsSignalServer(t, 'server');
  const address = `wss://localhost:${server.port}/#pin=${pair.pin}&token=${TOKEN}`;
  const dir = tempDir(t, 'papo-pin-e2e-homes-');
  const homes = { alice: join(dir, 'alice'), bob: join(dir, 'bob') };
  // No NODE_EXTRA_CA_CERTS, no PAPO_SIGNAL_TOKEN: the address is all a member has.
  const env = (home: string) => cleanEnv({ PAPO_HOME: home, NODE_EXTRA_CA_CERTS: undefined });

  const made = await runPapo(['new', '--name', 'alice', '--signal', address], { env: env(homes.alice) });
  assert.equal(made.code, 0, made.stderr);
  const invite = inviteIn(made.stdout);
  clean(made.stdout.replace(invite, ''), pair.pin, 'papo new');
  // Shown without its fragment.
  assert.match(made.stdout, new RegExp(`\\(wss://localhost:${server.port}\\)`));

  const joined = await runPapo(['join', '--name', 'bob'], { env: env(homes.bob), input: `${invite}\n` });
  assert.equal(joined.code, 0, joined.stderr);
  assert.match(
    joined.stdout,
    new RegExp(
      `^The signal server wss://localhost:${server.port} answers and accepts this room's token\\.$`,
      'm',
    ),
  );
  clean(joined.stdout + joined.stderr, pair.pin, 'papo join');

  const invited = await runPapo(['invite'], { env: env(homes.bob) });
  assert.equal(inviteIn(invited.stdout), invite, 'papo invite prints the whole invite, pin and token in it');
  clean(invited.stdout.replace(invite, ''), pair.pin, "papo invite's other lines");

  const mcpEnv = (home: string) => {
    const e = memberEnv({ PAPO_HOME: home, PAPO_LOG: 'debug' });
    delete e.NODE_EXTRA_CA_CERTS;
    delete e.PAPO_SIGNAL_TOKEN;
    return e;
  };
  const alice = await startMcp(t, homes.alice, mcpEnv(homes.alice));
  const bob = await startMcp(t, homes.bob, mcpEnv(homes.bob));
  const status = await waitOnline(alice, 'bob', 60_000);
  await waitOnline(bob, 'alice', 60_000);
  const sent = await alice.tool('send', { message: 'pinned hello' });
  assert.match(sent, /deliver|sent|queued/i);
  await waitFor(
    'bob to receive it',
    async () => (await bob.tool('wait', { timeout_seconds: 2 })).includes('pinned hello'),
    {
      timeoutMs: 30_000,
    },
  );
  clean(status + (await bob.tool('status')), pair.pin, "the agents' status");

  const person = await runPapo(['status', '--timeout', '5'], { env: env(homes.alice), timeoutMs: 30_000 });
  clean(person.stdout + person.stderr, pair.pin, 'papo status');
  const doctor = await runPapo(['doctor'], { env: env(homes.alice), timeoutMs: 60_000 });
  assert.match(doctor.stdout, new RegExp(`wss://localhost:${server.port} answered in`));
  clean(doctor.stdout + doctor.stderr, pair.pin, 'papo doctor');
  const json = await runPapo(['doctor', '--json'], { env: env(homes.alice), timeoutMs: 60_000 });
  clean(json.stdout, pair.pin, 'papo doctor --json');

  await alice.close();
  await bob.close();
  clean(alice.stderr() + bob.stderr(), pair.pin, 'the stderr diagnostics (PAPO_LOG=debug)');
});

test('papo join names a man-in-the-middle with another key, sends it nothing, and keeps the room', async (t) => {
  const real = selfSigned(t, 'real');
  const other = selfSigned(t, 'other');
  const heard: Buffer[] = [];
  const sockets = new Set<Socket>();
  const mitm = createTlsServer({ cert: readFileSync(other.cert), key: readFileSync(other.key) }, (s) => {
    s.on('data', (d: Buffer) => heard.push(d));
    s.on('error', () => {});
  });
  mitm.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  mitm.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => mitm.listen(0, '127.0.0.1', resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        mitm.close(() => resolve());
        for (const s of sockets) s.destroy();
      }),
  );
  const port = (mitm.address() as AddressInfo).port;
  const invite = encodeInvite(generateSecret(), `wss://localhost:${port}/#pin=${real.pin}&token=${TOKEN}`);
  const home = tempDir(t, 'papo-pin-e2e-mitm-');
  const joined = await runPapo(['join', invite, '--name', 'bob'], { env: cleanEnv({ PAPO_HOME: home }) });
  assert.equal(joined.code, 0, joined.stderr);
  assert.match(
    joined.stdout,
    new RegExp(
      `^warning: the signal server wss://localhost:${port} presents a certificate whose key is not the one this invite pins: its key changed, or another machine answers at that address; papo sends it nothing\\. Ask for a new invite$`,
      'm',
    ),
  );
  assert.equal(Buffer.concat(heard).length, 0, 'the impostor heard nothing: no upgrade, no token');
  clean(joined.stdout, real.pin, 'papo join');
  // pt-BR too.
  const pt = await runPapo(['join', invite, '--name', 'bob', '--force'], {
    env: cleanEnv({ PAPO_HOME: home, LANG: 'pt_BR.UTF-8' }),
  });
  assert.match(
    pt.stdout,
    /^aviso: o servidor de sinalização .* apresenta um certificado cuja chave não é a que este convite fixa/m,
  );
});

test('an old invite (no fragment) still joins; PAPO_SIGNAL_TOKEN and NODE_EXTRA_CA_CERTS still work for a server set up by hand', async (t) => {
  const { pair, server } = await tlsSignalServer(t, 'hand');
  const url = `wss://localhost:${server.port}`;
  const invite = encodeInvite(generateSecret(), url);
  const home = tempDir(t, 'papo-pin-e2e-old-');
  const joined = await runPapo(['join', invite, '--name', 'bob'], {
    env: cleanEnv({
      PAPO_HOME: home,
      PAPO_SIGNAL_TOKEN: `${url}=${TOKEN}`,
      NODE_EXTRA_CA_CERTS: pair.cert,
    }),
  });
  assert.equal(joined.code, 0, joined.stderr);
  assert.match(
    joined.stdout,
    new RegExp(`^The signal server ${url} answers and accepts this room's token\\.$`, 'm'),
  );
  const stored = JSON.parse(readFileSync(join(home, 'profiles', 'default', 'profile.json'), 'utf8'));
  assert.equal(stored.signalUrl, url);
  // Without the CA file, nothing trusts that certificate: the join names it, with the fix.
  const untrusted = await runPapo(['join', invite, '--name', 'bob', '--force'], {
    env: cleanEnv({ PAPO_HOME: home, PAPO_SIGNAL_TOKEN: `${url}=${TOKEN}`, NODE_EXTRA_CA_CERTS: undefined }),
  });
  assert.equal(untrusted.code, 0, untrusted.stderr);
  assert.match(
    untrusted.stdout,
    /^warning: the signal server .* presents a self-signed certificate, and the room's address pins no key for it; papo sends it nothing\. .*NODE_EXTRA_CA_CERTS/m,
  );
});
