// papo web's doors, over plain HTTP (no browser): the secret traded once for a session the page
// sends in a header (no cookie: ADR 0120), the Host and Origin checks, GET routes without side
// effects, and the headers every answer carries (ADR 0106).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CSP } from '../../src/cli/web/server.js';
import { runPapo, userEnv } from '../support/papo.js';
import { holdsWebRtc } from '../support/processes.js';
import { makeRoom } from '../support/room.js';
import { http, startWeb, webSession } from '../support/web.js';

test('papo web answers only its own address, its API only to a session its secret bought, and POSTs only from its own page', async (t) => {
  const room = await makeRoom(t, { label: 'web-http' });
  const web = await startWeb(t, room.members.voce.home);
  const host = `127.0.0.1:${web.port}`;
  const own = `http://${host}`;

  // The page's files hold nothing of the room: anyone on this machine may have them.
  const page = await http(web.port, '/', { headers: { Host: host } });
  assert.equal(page.status, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  assert.doesNotMatch(page.body, /<script>|\son[a-z]+=/i, 'no inline script in the page');
  assert.equal((await http(web.port, '/app.js', { headers: { Host: host } })).status, 200);

  // The API: no session, a guessed one, the secret itself, or the old cookie: 401, for each route.
  const routes: [string, string][] = [
    ['GET', '/api/state'],
    ['GET', '/api/profiles'],
    ['GET', '/api/events'],
    ['GET', '/api/presence'],
    ['POST', '/api/members'],
    ['POST', '/api/say'],
    ['POST', '/api/review'],
  ];
  for (const [method, path] of routes)
    for (const extra of [
      {},
      { Authorization: 'Bearer guess' },
      { Authorization: `Bearer ${web.secret}` },
      { Cookie: `papo_web=${web.secret}` },
    ]) {
      const r = await http(web.port, path, { method, headers: { Host: host, Origin: own, ...extra } });
      assert.equal(r.status, 401, `${method} ${path} ${JSON.stringify(extra)}`);
    }
  // The old door, `?k=` on /, is no door: the page, and no cookie.
  const old = await http(web.port, `/?k=${web.secret}`, { headers: { Host: host } });
  assert.equal(old.status, 200);
  assert.equal(old.headers['set-cookie'], undefined);

  // The secret buys a session, from the page's own origin only; a wrong secret buys none.
  const buy = (k: string, origin?: string) =>
    http(web.port, '/api/session', {
      method: 'POST',
      headers: { Host: host, 'Content-Type': 'application/json', ...(origin ? { Origin: origin } : {}) },
      body: JSON.stringify({ k }),
    });
  assert.equal((await buy('not-the-secret', own)).status, 401);
  assert.equal((await buy(web.secret, `http://127.0.0.1:${web.port + 1}`)).status, 403);
  assert.equal((await buy(web.secret)).status, 403);
  const { session, headers } = await webSession(web);
  assert.notEqual(session, web.secret, 'the session is not the secret');
  assert.notEqual((await webSession(web)).session, session, 'each page its own session');
  const state = JSON.parse((await http(web.port, '/api/state', { headers })).body);
  // Idle, with its page's state served, papo web holds no WebRTC (no member, no transport).
  assert.equal(holdsWebRtc(web.pid), false);
  assert.equal(state.self, 'voce');
  assert.equal(state.roomId, room.roomId);
  // The event stream, which a browser opens without headers, takes the session as ?s=.
  assert.equal((await http(web.port, '/api/events?s=guess', { headers: { Host: host } })).status, 401);
  assert.equal((await http(web.port, `/api/state?s=${session}`, { headers: { Host: host } })).status, 401);
  // GET routes only read: the look at the room (an ephemeral member) is a POST, refused as a GET.
  assert.equal((await http(web.port, '/api/members', { headers })).status, 404);

  // Another name for 127.0.0.1 (DNS rebinding), even with the session: refused.
  for (const other of [
    `evil.example:${web.port}`,
    '127.0.0.1',
    `127.0.0.1:${web.port + 1}`,
    `[::1]:${web.port}`,
  ])
    assert.equal(
      (await http(web.port, '/api/state', { headers: { ...headers, Host: other } })).status,
      421,
      other,
    );
  assert.equal(
    (await http(web.port, '/api/state', { headers: { ...headers, Host: `localhost:${web.port}` } })).status,
    200,
  );

  // A POST from another page (CSRF), or with no Origin at all: 403, and nothing said.
  const say = JSON.stringify({ body: 'from elsewhere' });
  for (const origin of ['http://evil.example', `http://127.0.0.1:${web.port + 1}`, 'null', undefined]) {
    const h: Record<string, string> = { ...headers, 'Content-Type': 'application/json' };
    if (origin !== undefined) h.Origin = origin;
    const r = await http(web.port, '/api/say', { method: 'POST', headers: h, body: say });
    assert.equal(r.status, 403, String(origin));
  }
  // From the page's own origin, the POST goes through (here: a say with an empty body, refused
  // by the say's own check, so nothing reaches the room).
  const said = await http(web.port, '/api/say', {
    method: 'POST',
    headers: { ...headers, Origin: own, 'Content-Type': 'application/json' },
    body: JSON.stringify({ body: '  ' }),
  });
  assert.equal(said.status, 200);
  assert.deepEqual(JSON.parse(said.body), { ok: false, lines: ['the message is empty'] });

  // Every answer, refusals included, carries the CSP and its companions.
  const answers = [
    page,
    said,
    await http(web.port, '/api/state', { headers: { Host: host } }),
    await http(web.port, '/', { headers: { Host: 'evil.example' } }),
  ];
  for (const a of answers) {
    assert.equal(a.headers['content-security-policy'], CSP);
    assert.equal(a.headers['x-content-type-options'], 'nosniff');
    assert.equal(a.headers['referrer-policy'], 'no-referrer');
  }
  assert.equal(
    CSP,
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  );
});

test('papo web listens on 127.0.0.1 only', async (t) => {
  const room = await makeRoom(t, { label: 'web-listen' });
  const web = await startWeb(t, room.members.voce.home);
  const { readFileSync } = await import('node:fs');
  // /proc/net/tcp: the listening socket's local address is 0100007F (127.0.0.1) on our port.
  const port = web.port.toString(16).toUpperCase().padStart(4, '0');
  const lines = readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .filter((l) => l.includes(`:${port} `));
  const listening = lines.filter((l) => l.split(/\s+/)[4] === '0A');
  assert.ok(listening.length > 0, 'a listening socket on the port');
  for (const l of listening) assert.equal(l.trim().split(/\s+/)[1], `0100007F:${port}`);
});

test('papo web serves every profile of PAPO_HOME by name, and no path that is not one', async (t) => {
  const room = await makeRoom(t, { label: 'web-profiles' });
  const home = room.members.voce.home;
  const made = await runPapo(['new', '--name', 'ana', '--profile', 'work', '--signal', 'ws://127.0.0.1:9'], {
    env: userEnv(home),
  });
  assert.equal(made.code, 0, made.stderr);
  const web = await startWeb(t, home);
  const { headers } = await webSession(web);
  const profiles = JSON.parse((await http(web.port, '/api/profiles', { headers })).body);
  assert.equal(profiles.first, 'default');
  assert.deepEqual(
    profiles.profiles.map((p: { profile: string; self: string }) => `${p.profile}:${p.self}`),
    ['default:voce', 'work:ana'],
  );
  assert.equal(JSON.parse((await http(web.port, '/api/state?profile=work', { headers })).body).self, 'ana');
  assert.equal(JSON.parse((await http(web.port, '/api/state', { headers })).body).self, 'voce');
  for (const bad of ['nope', '..', '..%2Fvoce', '.', 'a%2Fb'])
    assert.equal((await http(web.port, `/api/state?profile=${bad}`, { headers })).status, 404, bad);
});
