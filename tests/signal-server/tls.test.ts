// TLS in `papo signal` itself (ADR 0073), with a CA made by the test: https and wss on one port, a
// renewed certificate picked up by new connections while an old socket stays open, a bad renewed
// pair logged and the old one kept, clear errors at start, and two real `papo mcp` members meeting
// over wss:// (the CA given to them with NODE_EXTRA_CA_CERTS) and exchanging a message.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import type { TLSSocket } from 'node:tls';
import { WebSocket } from 'ws';
import type { ServerMessage } from '../../src/signal-protocol.js';
import { type SignalServerHandle, startSignalServer } from '../../src/signal-server/server.js';
import { startMcp, waitOnline } from '../member/helpers.js';
import { tempDir } from '../support/files.js';
import { memberEnv } from '../support/papo.js';
import { makeRoom } from '../support/room.js';
import { waitFor } from '../support/wait.js';
import { hex32 } from './helpers.js';
import { CLI, startCliSignal, stop, waitForOutput } from './processes.js';
import { install, issueLeaf, makeCa, type TestCa } from './tls-ca.js';

function setup(t: TestContext) {
  const dir = tempDir(t, 'papo-tls-');
  const ca = makeCa(dir);
  const files = { certFile: join(dir, 'fullchain.pem'), keyFile: join(dir, 'privkey.pem') };
  const first = issueLeaf(ca);
  install(files, first);
  return { dir, ca, files, first };
}

async function tlsServer(
  t: TestContext,
  files: { certFile: string; keyFile: string },
  log: (line: string) => void = () => {},
): Promise<SignalServerHandle> {
  const s = await startSignalServer({
    host: '127.0.0.1',
    port: 0,
    env: {},
    config: { tls: files, tlsReloadMs: 50 },
    log,
  });
  t.after(() => s.close());
  return s;
}

/** A wss client that trusts only the test's CA; resolves with the socket and the leaf's serial. */
function wss(
  ca: TestCa,
  port: number,
  peer: string = hex32(),
): Promise<{ ws: WebSocket; serial: string; heard: ServerMessage[] }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`wss://localhost:${port}/v1/ws?peer=${peer}`, { ca: ca.ca });
    const heard: ServerMessage[] = [];
    let serial = '';
    ws.on('upgrade', (res) => {
      serial = (res.socket as TLSSocket).getPeerCertificate().serialNumber;
    });
    ws.on('message', (data) => {
      heard.push(JSON.parse(String(data)) as ServerMessage);
      if (heard.length === 1) resolve({ ws, serial, heard });
    });
    ws.on('error', reject);
  });
}

function closeAll(t: TestContext, sockets: WebSocket[]): void {
  t.after(() => {
    for (const ws of sockets) ws.terminate();
  });
}

test('https and wss on one port, checked against the CA; plain ws and an untrusting client are refused', async (t) => {
  const { ca, files, first } = setup(t);
  const s = await tlsServer(t, files);
  assert.match(s.url, /^wss:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(s.tls?.serial, first.serial);

  const c = await wss(ca, s.port);
  closeAll(t, [c.ws]);
  assert.equal(c.serial, first.serial);
  assert.equal(c.heard[0]?.t, 'welcome');

  const health = await new Promise<string>((resolve, reject) => {
    request({ host: 'localhost', port: s.port, path: '/healthz', ca: ca.ca }, (res) => {
      let body = '';
      res.on('data', (d) => {
        body += d;
      });
      res.on('end', () => resolve(`${res.statusCode} ${body}`));
    })
      .on('error', reject)
      .end();
  });
  assert.equal(health, '200 ok\n');

  // Without the CA the certificate is not trusted; in clear text the port does not speak HTTP.
  await assert.rejects(
    new Promise((resolve, reject) => {
      const ws = new WebSocket(`wss://localhost:${s.port}/v1/ws`);
      ws.on('open', resolve);
      ws.on('error', reject);
    }),
    /self[- ]signed|unable to (get|verify)/i,
  );
  await assert.rejects(
    new Promise((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${s.port}/v1/ws`, { handshakeTimeout: 3000 });
      ws.on('open', resolve);
      ws.on('error', reject);
    }),
  );
});

test('a renewed certificate is used by new connections while an open socket stays and keeps working', async (t) => {
  const { ca, files, first } = setup(t);
  const lines: string[] = [];
  const s = await tlsServer(t, files, (l) => lines.push(l));
  const topic = hex32();
  const [pa, pb] = [hex32(), hex32()];
  const old = await wss(ca, s.port, pa);
  closeAll(t, [old.ws]);
  assert.equal(old.serial, first.serial);
  old.ws.send(JSON.stringify({ t: 'join', topic, peer: pa }));
  await waitFor('peers for the old socket', () => old.heard.some((m) => m.t === 'peers'), 5000);

  const renewed = issueLeaf(ca);
  assert.notEqual(renewed.serial, first.serial);
  install(files, renewed);
  await waitFor('the renewal logged', () => lines.some((l) => l.includes(`serial ${renewed.serial}`)), 5000);
  const fresh = await wss(ca, s.port, pb);
  closeAll(t, [fresh.ws]);
  assert.equal(fresh.serial, renewed.serial);
  assert.equal(s.tls?.serial, renewed.serial);

  // The socket made under the old certificate is the same socket, and still forwards both ways.
  assert.equal(old.ws.readyState, WebSocket.OPEN);
  fresh.ws.send(JSON.stringify({ t: 'join', topic, peer: pb }));
  await waitFor('the old socket hears the new peer', () => old.heard.some((m) => m.t === 'joined'), 5000);
  old.ws.send(JSON.stringify({ t: 'signal', topic, to: pb, data: 'aGVsbG8=' }));
  await waitFor(
    'the signal over the renewed connection',
    () => fresh.heard.some((m) => m.t === 'signal' && m.from === pa && m.data === 'aGVsbG8='),
    5000,
  );
  fresh.ws.send(JSON.stringify({ t: 'signal', topic, to: pa, data: 'b2xh' }));
  await waitFor(
    'the signal over the old connection',
    () => old.heard.some((m) => m.t === 'signal' && m.from === pb),
    5000,
  );
});

test('a renewed pair that does not match is logged and the previous certificate kept, until a good pair comes', async (t) => {
  const { ca, files, first } = setup(t);
  const lines: string[] = [];
  const s = await tlsServer(t, files, (l) => lines.push(l));

  // A half-done renewal: the new certificate beside the old key.
  const next = issueLeaf(ca);
  install(files, { cert: next.cert, key: first.key });
  await waitFor('the refusal logged', () => lines.some((l) => /previous certificate stays/.test(l)), 5000);
  const refusal = lines.find((l) => /previous certificate stays/.test(l)) ?? '';
  assert.match(refusal, /does not belong to the certificate/);
  assert.ok(!refusal.includes('PRIVATE KEY'), 'no key material in the log');
  const during = await wss(ca, s.port);
  closeAll(t, [during.ws]);
  assert.equal(during.serial, first.serial);

  // The key arrives: the pair loads.
  install(files, next);
  await waitFor('the renewal logged', () => lines.some((l) => l.includes(`serial ${next.serial}`)), 5000);
  const after = await wss(ca, s.port);
  closeAll(t, [after.ws]);
  assert.equal(after.serial, next.serial);
});

test('a missing, unreadable, mismatched or half-given pair stops the start with a message naming the file', async (t) => {
  const { dir, ca, files, first } = setup(t);
  const other = issueLeaf(ca);
  const mismatchedKey = join(dir, 'other.key');
  writeFileSync(mismatchedKey, other.key);
  const notPem = join(dir, 'not.pem');
  writeFileSync(notPem, 'not a certificate\n');
  const folder = join(dir, 'a-folder');
  mkdirSync(folder);
  const missing = join(dir, 'missing.pem');
  const cases: [Record<string, string>, RegExp][] = [
    [
      { PAPO_SIGNAL_TLS_CERT: missing, PAPO_SIGNAL_TLS_KEY: files.keyFile },
      /certificate .*missing\.pem: no such file/,
    ],
    [{ PAPO_SIGNAL_TLS_CERT: files.certFile, PAPO_SIGNAL_TLS_KEY: folder }, /key .*a-folder: it is a folder/],
    [
      { PAPO_SIGNAL_TLS_CERT: notPem, PAPO_SIGNAL_TLS_KEY: files.keyFile },
      /not\.pem is not a PEM certificate/,
    ],
    [
      { PAPO_SIGNAL_TLS_CERT: files.certFile, PAPO_SIGNAL_TLS_KEY: notPem },
      /not\.pem is not an unencrypted PEM private key/,
    ],
    [
      { PAPO_SIGNAL_TLS_CERT: files.certFile, PAPO_SIGNAL_TLS_KEY: mismatchedKey },
      /other\.key does not belong to the certificate .*fullchain\.pem/,
    ],
    [{ PAPO_SIGNAL_TLS_CERT: files.certFile }, /set both PAPO_SIGNAL_TLS_CERT and PAPO_SIGNAL_TLS_KEY/],
  ];
  for (const [env, expected] of cases) {
    const r = spawnSync(process.execPath, [CLI, 'signal', '--host', '127.0.0.1', '--port', '0'], {
      env: { PATH: process.env.PATH, PAPO_SIGNAL_METRICS: 'off', ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });
    assert.equal(r.status, 1, `${JSON.stringify(env)}: ${r.stderr}`);
    assert.match(r.stderr, expected);
    assert.doesNotMatch(r.stderr, /BEGIN|listening on/);
  }
  // The flags: one alone is refused too, and a good pair starts (wss).
  const half = spawnSync(process.execPath, [CLI, 'signal', '--port', '0', '--tls-key', files.keyFile], {
    env: { PATH: process.env.PATH, PAPO_SIGNAL_METRICS: 'off' },
    encoding: 'utf8',
    timeout: 20_000,
  });
  assert.equal(half.status, 1);
  assert.match(half.stderr, /--tls-cert and --tls-key/);
  const ok = await startCliSignal({
    PAPO_SIGNAL_TLS_CERT: files.certFile,
    PAPO_SIGNAL_TLS_KEY: files.keyFile,
  });
  t.after(() => stop(ok.child));
  assert.match(ok.url, /^wss:\/\//);
  const c = await wss(ca, Number(new URL(ok.url).port));
  closeAll(t, [c.ws]);
  assert.equal(c.serial, first.serial);
});

test('papo signal --tls-cert/--tls-key reloads renewed files on its own', async (t) => {
  const { ca, files } = setup(t);
  const flagged = spawn(
    process.execPath,
    [
      CLI,
      'signal',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      '--tls-cert',
      files.certFile,
      '--tls-key',
      files.keyFile,
    ],
    {
      env: { PATH: process.env.PATH, PAPO_SIGNAL_METRICS: 'off', PAPO_SIGNAL_TLS_RELOAD: '0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  t.after(() => stop(flagged));
  const m = await waitForOutput(flagged, /listening on (wss:\/\/[^\s]+)\/v1\/ws/);
  const port = Number(new URL(m[1] as string).port);
  const renewed = issueLeaf(ca);
  install(files, renewed);
  await waitForOutput(flagged, new RegExp(`renewed certificate loaded \\(serial ${renewed.serial}`));
  const c = await wss(ca, port);
  closeAll(t, [c.ws]);
  assert.equal(c.serial, renewed.serial);
});

test('two papo mcp members meet over wss:// with the CA in NODE_EXTRA_CA_CERTS and exchange a message', {
  timeout: 120_000,
}, async (t) => {
  const { ca, files } = setup(t);
  const s = await tlsServer(t, files);
  const room = await makeRoom(t, {
    names: ['Ana', 'Bia'],
    signalUrl: `wss://localhost:${s.port}`,
    make: 'store',
  });
  const env = memberEnv({ NODE_EXTRA_CA_CERTS: ca.caFile });
  const ana = await startMcp(t, room.members.Ana.home, env);
  const bia = await startMcp(t, room.members.Bia.home, env);
  await waitOnline(ana, 'Bia', 60_000);
  const sent = await ana.tool('send', { message: 'over TLS all the way' });
  assert.match(sent, /^Delivered to Bia/);
  await waitFor('Bia has it', async () => /over TLS all the way/.test(await bia.tool('inbox')), 20_000);
  assert.equal(s.metrics.connectionsAccepted >= 2, true);
});
