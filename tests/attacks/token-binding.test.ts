// Finding 3 of the 2026-12-01 review (docs/security.md): a member sent PAPO_SIGNAL_TOKEN to
// whatever signal server the room (that is, an invite anyone can make) named. A rogue listener —
// a plain node:http server that records the headers of every request — is named as the room's
// signal URL, and the built `papo` runs as a user would. Tokens are bound to their origin now
// (ADR 0060): the rogue gets one only when the user bound it there.
import assert from 'node:assert/strict';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { type TestContext, test } from 'node:test';
import { startMember } from '../support/members.js';
import { memberEnv, runPapo } from '../support/papo.js';
import { makeRoom } from '../support/room.js';

const TOKEN = 'test-token-not-secret';

interface Rogue {
  url: string;
  origin: string;
  /** Headers of every request it received (HTTP or WebSocket upgrade). */
  seen: IncomingHttpHeaders[];
}

/** A listener that records request headers and refuses every upgrade with 401. */
async function rogue(t: TestContext, host = '127.0.0.1'): Promise<Rogue> {
  const seen: IncomingHttpHeaders[] = [];
  const server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(404).end();
  });
  server.on('upgrade', (req, socket) => {
    seen.push(req.headers);
    socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as AddressInfo;
  return { url: `ws://${host}:${port}`, origin: `ws://${host}:${port}`, seen };
}

/** `papo status` for the room's first member, with these extra variables. */
async function status(home: string, extra: NodeJS.ProcessEnv) {
  return runPapo(['status', '--timeout', '2'], {
    env: memberEnv({ HOME: home, PAPO_HOME: home, ...extra }),
    timeoutMs: 60_000,
  });
}

async function roomOn(t: TestContext, url: string): Promise<string> {
  const setup = await makeRoom(t, { names: ['token-holder'], signalUrl: url, label: 'token' });
  return setup.homes[0] as string;
}

const auth = (r: Rogue) => r.seen.map((h) => h.authorization).filter((a) => a !== undefined);

test('a token bound to another origin never reaches the server a room names', {
  timeout: 90_000,
}, async (t) => {
  const evil = await rogue(t);
  const home = await roomOn(t, evil.url);
  const elsewhere = `wss://signal.corp.example=${TOKEN}, ws://127.0.0.1:1=${TOKEN} https://127.0.0.1:${new URL(evil.url).port}=${TOKEN}`;
  const run = await status(home, { PAPO_SIGNAL_TOKEN: elsewhere });
  assert.ok(evil.seen.length >= 1, `the member dialled the room's server:\n${run.stderr}`);
  assert.deepEqual(auth(evil), [], 'no authorization header reached the rogue');
  // The server refused without a token: the warning says how to bind one to it.
  assert.match(
    run.stderr,
    new RegExp(
      `refused the connection: it requires a token \\(set PAPO_SIGNAL_TOKEN=${evil.origin.replace(/[.]/g, '\\.')}=<token>\\)`,
    ),
  );
  assert.ok(!`${run.stdout}${run.stderr}`.includes(TOKEN));
});

test('a bare token without PAPO_SIGNAL is refused with the ORIGIN=TOKEN form for the room', {
  timeout: 60_000,
}, async (t) => {
  const evil = await rogue(t);
  const home = await roomOn(t, evil.url);
  const run = await status(home, { PAPO_SIGNAL_TOKEN: TOKEN });
  assert.equal(run.code, 1);
  assert.match(
    run.stderr,
    new RegExp(
      `^error: PAPO_SIGNAL_TOKEN is a token without a server.*write PAPO_SIGNAL_TOKEN=${evil.origin.replace(/[.]/g, '\\.')}=TOKEN$`,
      'm',
    ),
  );
  assert.ok(!run.stderr.includes(TOKEN));
  assert.equal(evil.seen.length, 0, 'nothing was sent anywhere');
  const pt = await status(home, { PAPO_SIGNAL_TOKEN: TOKEN, LANG: 'pt_BR.UTF-8' });
  assert.equal(pt.code, 1);
  assert.match(
    pt.stderr,
    /^erro: PAPO_SIGNAL_TOKEN é um token sem servidor.*escreva PAPO_SIGNAL_TOKEN=ws:\/\/127\.0\.0\.1:\d+=TOKEN$/m,
  );

  // papo mcp: every tool says what is wrong and how to fix it, without asking for the token.
  const agent = await startMember('token-holder', home, { env: { PAPO_SIGNAL_TOKEN: TOKEN } });
  t.after(() => agent.kill());
  const said = await agent.status();
  assert.match(said, /^papo is not available: PAPO_SIGNAL_TOKEN is a token without a server/);
  assert.match(said, /PAPO_SIGNAL_TOKEN=ws:\/\/127\.0\.0\.1:\d+=TOKEN/);
  assert.match(said, /Never ask for the token in this conversation/);
  assert.equal(evil.seen.length, 0);
});

test('the token goes where the user bound it: a bare token with PAPO_SIGNAL, or the origin in another spelling', {
  timeout: 60_000,
}, async (t) => {
  const evil = await rogue(t);
  const home = await roomOn(t, evil.url);
  await status(home, { PAPO_SIGNAL_TOKEN: TOKEN, PAPO_SIGNAL: `${evil.url}/` });
  assert.ok(evil.seen.length >= 1);
  assert.deepEqual([...new Set(auth(evil))], [`Bearer ${TOKEN}`]);
  evil.seen.length = 0;
  const port = new URL(evil.url).port;
  await status(home, {
    PAPO_SIGNAL_TOKEN: `wss://signal.corp.example=other-${TOKEN} http://127.0.0.1:${port}/=${TOKEN}`,
  });
  assert.ok(evil.seen.length >= 1);
  assert.deepEqual([...new Set(auth(evil))], [`Bearer ${TOKEN}`]);
});

test('a token never goes over ws:// to another machine', { timeout: 60_000 }, async (t) => {
  // A real non-loopback address of this machine stands for "another machine": the socket to it
  // is a real ws:// connection that is not on loopback.
  const lan = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && a.family === 'IPv4' && !a.internal)?.address;
  if (lan === undefined) {
    t.skip('no non-loopback IPv4 address on this machine (tests/net/signal-token.test.ts covers the rule)');
    return;
  }
  const evil = await rogue(t, lan);
  const home = await roomOn(t, evil.url);
  for (const extra of [
    { PAPO_SIGNAL_TOKEN: `${evil.origin}=${TOKEN}` },
    { PAPO_SIGNAL_TOKEN: `http://${lan}:${new URL(evil.url).port}=${TOKEN}` },
    { PAPO_SIGNAL_TOKEN: TOKEN, PAPO_SIGNAL: evil.url },
  ]) {
    const run = await status(home, extra);
    assert.equal(run.code, 1, run.stderr);
    assert.match(
      run.stderr,
      /^error: PAPO_SIGNAL_TOKEN binds a token to ws:\/\/.*travel in clear, so papo never sends it/m,
    );
    assert.ok(!run.stderr.includes(TOKEN));
  }
  assert.equal(evil.seen.length, 0);
  // A bare token without PAPO_SIGNAL for such a room: the fix is TLS first.
  const bare = await status(home, { PAPO_SIGNAL_TOKEN: TOKEN });
  assert.equal(bare.code, 1);
  assert.match(
    bare.stderr,
    /this room's server, ws:\/\/.*, is plain ws:\/\/ on another machine, where a token is never sent: put TLS in front of it/,
  );
  // Tokens for other servers only: the room still connects, without one.
  await status(home, { PAPO_SIGNAL_TOKEN: `wss://signal.corp.example=${TOKEN}` });
  assert.ok(evil.seen.length >= 1);
  assert.deepEqual(auth(evil), []);
});
