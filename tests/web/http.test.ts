// papo web's doors, over plain HTTP (no browser): the secret, the cookie it becomes, the Host and
// Origin checks and the headers every answer carries (ADR 0106).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CSP } from '../../src/cli/web/server.js';
import { runPapo, userEnv } from '../support/papo.js';
import { holdsWebRtc } from '../support/processes.js';
import { makeRoom } from '../support/room.js';
import { http, startWeb } from '../support/web.js';

test('papo web answers only its own address, with its secret or its cookie, and POSTs only from its own page', async (t) => {
  const room = await makeRoom(t, { label: 'web-http' });
  const web = await startWeb(t, room.members.voce.home);
  const host = `127.0.0.1:${web.port}`;
  const cookie = `papo_web=${web.secret}`;

  // No secret, a wrong one, or a wrong cookie: 401, whatever the path.
  for (const path of ['/', '/api/state', '/app.js', '/api/events'])
    assert.equal((await http(web.port, path, { headers: { Host: host } })).status, 401, path);
  assert.equal((await http(web.port, '/?k=not-the-secret', { headers: { Host: host } })).status, 401);
  assert.equal(
    (await http(web.port, '/api/state', { headers: { Host: host, Cookie: 'papo_web=guess' } })).status,
    401,
  );

  // The secret is swapped for a cookie scripts cannot read, sent to this site only, and the
  // address bar loses it (a redirect to /).
  const swap = await http(web.port, `/?k=${web.secret}`, { headers: { Host: host } });
  assert.equal(swap.status, 303);
  assert.equal(swap.headers.location, '/');
  const set = String(swap.headers['set-cookie']);
  assert.match(set, new RegExp(`^papo_web=${web.secret};`));
  assert.match(set, /; HttpOnly/);
  assert.match(set, /; SameSite=Strict/);
  assert.match(set, /; Path=\//);
  const page = await http(web.port, '/', { headers: { Host: host, Cookie: cookie } });
  assert.equal(page.status, 200);
  assert.match(String(page.headers['content-type']), /^text\/html/);
  assert.doesNotMatch(page.body, /<script>|\son[a-z]+=/i, 'no inline script in the page');
  const state = JSON.parse(
    (await http(web.port, '/api/state', { headers: { Host: host, Cookie: cookie } })).body,
  );
  // Idle, with its page's state served, papo web holds no WebRTC (no member, no transport).
  assert.equal(holdsWebRtc(web.pid), false);
  assert.equal(state.self, 'voce');
  assert.equal(state.roomId, room.roomId);

  // Another name for 127.0.0.1 (DNS rebinding), even with the cookie: refused.
  for (const other of [
    `evil.example:${web.port}`,
    '127.0.0.1',
    `127.0.0.1:${web.port + 1}`,
    `[::1]:${web.port}`,
  ])
    assert.equal(
      (await http(web.port, '/api/state', { headers: { Host: other, Cookie: cookie } })).status,
      421,
      other,
    );
  assert.equal(
    (await http(web.port, '/api/state', { headers: { Host: `localhost:${web.port}`, Cookie: cookie } }))
      .status,
    200,
  );

  // A POST from another page (CSRF), or with no Origin at all: 403, and nothing said.
  const say = JSON.stringify({ body: 'from elsewhere' });
  for (const origin of ['http://evil.example', `http://127.0.0.1:${web.port + 1}`, 'null', undefined]) {
    const headers: Record<string, string> = {
      Host: host,
      Cookie: cookie,
      'Content-Type': 'application/json',
    };
    if (origin !== undefined) headers.Origin = origin;
    const r = await http(web.port, '/api/say', { method: 'POST', headers, body: say });
    assert.equal(r.status, 403, String(origin));
  }
  // From the page's own origin, the POST goes through (here: a say with an empty body, refused
  // by the say's own check, so nothing reaches the room).
  const own = await http(web.port, '/api/say', {
    method: 'POST',
    headers: { Host: host, Cookie: cookie, Origin: `http://${host}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ body: '  ' }),
  });
  assert.equal(own.status, 200);
  assert.deepEqual(JSON.parse(own.body), { ok: false, lines: ['the message is empty'] });

  // Every answer, refusals included, carries the CSP and its companions.
  const answers = [
    swap,
    page,
    await http(web.port, '/', { headers: { Host: host } }),
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
  const headers = { Host: `127.0.0.1:${web.port}`, Cookie: `papo_web=${web.secret}` };
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
