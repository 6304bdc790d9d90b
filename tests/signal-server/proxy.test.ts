// "TLS in front" of docs/signal-server.md, run as an operator runs it: a real nginx and a real Caddy,
// each a process of its own on a free loopback port with a configuration written here from the
// recipe the docs give (read from the docs, so that the two cannot drift apart), terminating TLS
// with a certificate of a CA made by the test, in front of a real `papo signal` on plain ws://.
// - Two `papo mcp` members whose room's signal URL is the proxy's wss:// meet and a message is
//   delivered (the CA given to them with NODE_EXTRA_CA_CERTS).
// - With PAPO_SIGNAL_TRUST_PROXY=1 the per-address limit counts the address the proxy forwards in
//   X-Forwarded-For (clients dial from 127.0.0.2 and 127.0.0.3, which loopback allows), and an
//   X-Forwarded-For the client forges is not believed; without it, every client is the proxy.
// - nginx: the server's pings keep a quiet socket open past proxy_read_timeout (scaled down: the
//   recipe's 120 s against the 20 s default interval is checked as arithmetic, then 4 s against
//   1 s pings is run; without the pings nginx cuts the socket). Caddy's reverse_proxy sets no read
//   timeout of its own by default, so this is shown for nginx only (not measured for Caddy).
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import type { ServerMessage } from '../../src/signal-protocol.js';
import { DEFAULTS } from '../../src/signal-server/config.js';
import { startMcp, waitOnline } from '../member/helpers.js';
import { supervised } from '../support/coturn.js';
import { makeTempDir } from '../support/files.js';
import { memberEnv } from '../support/papo.js';
import { makeRoom } from '../support/room.js';
import { waitFor } from '../support/wait.js';
import { hex32 } from './helpers.js';
import { freePort, startCliSignal, stop } from './processes.js';
import { issueLeaf, makeCa, type TestCa } from './tls-ca.js';

const DOCS = fileURLToPath(new URL('../../../docs/signal-server.md', import.meta.url));

function present(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).error === undefined;
}
const hasNginx = present('nginx', ['-v']);
const hasCaddy = present('caddy', ['version']);

/** The section "TLS in front" of the docs. */
function section(): string {
  const docs = readFileSync(DOCS, 'utf8');
  const start = docs.indexOf('### TLS in front');
  assert.ok(start >= 0, 'docs/signal-server.md has a section "TLS in front"');
  const end = docs.indexOf('\n#', start + 4);
  return docs.slice(start, end < 0 ? undefined : end);
}

/** The nginx recipe of the docs, one line: the directives between the backquotes after "nginx:". */
function nginxRecipe(): string {
  const m = /\nnginx: `([^`]+)`/.exec(section());
  assert.ok(m?.[1], 'the docs give an nginx recipe');
  return m[1].replace(/\s+/g, ' ').trim();
}

/** The Caddyfile of the docs: the code block after "Caddy:". */
function caddyRecipe(): string {
  const m = /Caddy:\n\n```\n([\s\S]*?)```/.exec(section());
  assert.ok(m?.[1], 'the docs give a Caddyfile');
  return m[1];
}

/** The recipes name the upstream as the default 127.0.0.1:7450; the test's is on another port. */
function upstreamed(recipe: string, upstream: number): string {
  assert.ok(recipe.includes('127.0.0.1:7450'), `the recipe proxies to 127.0.0.1:7450: ${recipe}`);
  return recipe.replaceAll('127.0.0.1:7450', `127.0.0.1:${upstream}`);
}

interface Proxy {
  port: number;
  /** The proxy's own logs so far (for failures and the access log). */
  logs(): string;
}

/**
 * Everything one test starts, stopped in reverse order after it (also when it fails), then its
 * folder removed: processes first, since they write into it.
 */
function scope(t: TestContext, prefix: string) {
  const dir = makeTempDir(prefix);
  const stops: (() => Promise<void>)[] = [];
  t.after(async () => {
    for (const s of stops.reverse()) await s().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  });
  const ca = makeCa(dir);
  const leaf = issueLeaf(ca);
  const cert = join(dir, 'fullchain.pem');
  const key = join(dir, 'privkey.pem');
  writeFileSync(cert, leaf.cert);
  writeFileSync(key, leaf.key, { mode: 0o600 });
  return { dir, ca, cert, key, stops };
}
type Scope = ReturnType<typeof scope>;

/** `papo signal` on plain ws:// on loopback, as the recipe has it behind the proxy. */
async function signal(s: Scope, env: NodeJS.ProcessEnv = {}): Promise<number> {
  const started = await startCliSignal(env);
  s.stops.push(() => stop(started.child));
  assert.match(started.url, /^ws:\/\/127\.0\.0\.1:\d+$/);
  return Number(new URL(started.url).port);
}

/**
 * nginx with the docs' directives in `location /` of a TLS server on a free loopback port; its pid,
 * logs and temporary folders in the test's folder, so that nothing of /var or /run is needed.
 * `recipe` replaces the docs' line (for the timeout, scaled down).
 */
async function startNginx(s: Scope, upstream: number, recipe = nginxRecipe()): Promise<Proxy> {
  const port = await freePort();
  const d = mkdtempSync(join(s.dir, 'nginx-'));
  const conf = join(d, 'nginx.conf');
  writeFileSync(
    conf,
    `daemon off;
pid ${d}/nginx.pid;
error_log stderr info;
worker_processes 1;
events { worker_connections 256; }
http {
  access_log ${d}/access.log;
  client_body_temp_path ${d}/body;
  proxy_temp_path ${d}/proxy;
  fastcgi_temp_path ${d}/fastcgi;
  uwsgi_temp_path ${d}/uwsgi;
  scgi_temp_path ${d}/scgi;
  server {
    listen 127.0.0.1:${port} ssl;
    server_name localhost;
    ssl_certificate ${s.cert};
    ssl_certificate_key ${s.key};
    location / {
      ${upstreamed(recipe, upstream)}
    }
  }
}
`,
  );
  // Its error log on stderr, kept by `supervised` (and shown if it does not start).
  const child = spawn('nginx', ['-p', d, '-c', conf, '-e', 'stderr'], { stdio: ['ignore', 'pipe', 'pipe'] });
  const proc = await supervised(child, d, [port], 'nginx');
  s.stops.push(proc.close);
  const access = () => {
    try {
      return readFileSync(join(d, 'access.log'), 'utf8');
    } catch {
      return '';
    }
  };
  return { port, logs: () => `${proc.log()}\n--- access.log\n${access()}` };
}

/**
 * Caddy with the docs' Caddyfile for the site `localhost:<port>`, plus what a test needs: the
 * certificate given (`tls <cert> <key>`, so no ACME), bound to loopback, no admin endpoint, no
 * HTTP redirect listener, no trust store touched, its storage and HOME in the test's folder.
 */
async function startCaddy(s: Scope, upstream: number): Promise<Proxy> {
  const port = await freePort();
  const d = mkdtempSync(join(s.dir, 'caddy-'));
  const site = upstreamed(caddyRecipe(), upstream).replace(
    /^signal\.example\.org \{\n/,
    `localhost:${port} {\n  bind 127.0.0.1\n  tls ${s.cert} ${s.key}\n`,
  );
  assert.ok(site.startsWith(`localhost:${port} {`), `the docs' Caddyfile is for signal.example.org: ${site}`);
  const conf = join(d, 'Caddyfile');
  writeFileSync(
    conf,
    `{
  admin off
  auto_https disable_redirects
  skip_install_trust
  storage file_system ${d}/storage
}
${site}`,
  );
  const child = spawn('caddy', ['run', '--config', conf, '--adapter', 'caddyfile'], {
    env: {
      PATH: process.env.PATH,
      HOME: d,
      XDG_DATA_HOME: join(d, 'data'),
      XDG_CONFIG_HOME: join(d, 'config'),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const proc = await supervised(child, d, [port], 'caddy');
  s.stops.push(proc.close);
  return { port, logs: proc.log };
}

interface Dialed {
  ws: WebSocket;
  first: ServerMessage;
  heard: ServerMessage[];
  closed: Promise<number>;
}

/** A wss client through the proxy that trusts only the test's CA, optionally from another loopback address. */
function dial(
  ca: TestCa,
  port: number,
  options: { from?: string; headers?: Record<string, string> | undefined } = {},
) {
  return new Promise<Dialed>((resolve, reject) => {
    const ws = new WebSocket(`wss://localhost:${port}/v1/ws?peer=${hex32()}`, {
      ca: ca.ca,
      localAddress: options.from,
      headers: options.headers,
      handshakeTimeout: 10_000,
    });
    const heard: ServerMessage[] = [];
    const closed = new Promise<number>((r) => ws.on('close', (code) => r(code)));
    ws.on('message', (data) => {
      heard.push(JSON.parse(String(data)) as ServerMessage);
      if (heard.length === 1) resolve({ ws, first: heard[0] as ServerMessage, heard, closed });
    });
    ws.on('error', reject);
  });
}

type Kind = 'nginx' | 'caddy';
const PROXIES: { kind: Kind; present: boolean; start: (s: Scope, upstream: number) => Promise<Proxy> }[] = [
  { kind: 'nginx', present: hasNginx, start: (s, upstream) => startNginx(s, upstream) },
  { kind: 'caddy', present: hasCaddy, start: startCaddy },
];

for (const { kind, present: installed, start } of PROXIES) {
  const skip = installed
    ? false
    : `${kind} is not installed (Debian: apt-get install ${kind === 'nginx' ? 'nginx-light' : 'caddy'})`;

  test(`${kind}: two papo mcp members whose signal URL is the proxy's wss:// meet through it and a message is delivered`, {
    timeout: 120_000,
    skip,
  }, async (t) => {
    const s = scope(t, `papo-proxy-${kind}-`);
    const upstream = await signal(s, { PAPO_SIGNAL_TRUST_PROXY: '1' });
    const proxy = await start(s, upstream);

    // The v1 welcome and a join answered by `peers`, through the proxy.
    const probe = await dial(s.ca, proxy.port);
    t.after(() => probe.ws.terminate());
    assert.equal(probe.first.t, 'welcome');
    probe.ws.send(JSON.stringify({ t: 'join', topic: hex32(), peer: hex32() }));
    await waitFor('peers through the proxy', () => probe.heard.some((m) => m.t === 'peers'), 5000);
    probe.ws.terminate();

    const room = await makeRoom(t, {
      names: ['Ana', 'Bia'],
      signalUrl: `wss://localhost:${proxy.port}`,
      make: 'store',
    });
    const env = memberEnv({ NODE_EXTRA_CA_CERTS: s.ca.caFile });
    const ana = await startMcp(t, room.members.Ana.home, env);
    const bia = await startMcp(t, room.members.Bia.home, env);
    await waitOnline(ana, 'Bia', 60_000);
    const sent = await ana.tool('send', { message: `through ${kind} and back` });
    assert.match(sent, /^Delivered to Bia/);
    await waitFor(
      'Bia has it',
      async () => new RegExp(`through ${kind} and back`).test(await bia.tool('inbox')),
      {
        timeoutMs: 20_000,
        intervalMs: 200,
      },
    );
    // nginx logs each upgrade: the members' sockets went through it (101), not around it.
    if (kind === 'nginx') assert.match(proxy.logs(), /"GET \/v1\/ws\?peer=[0-9a-f]+ HTTP\/1\.1" 101 /);
  });

  test(`${kind}: with PAPO_SIGNAL_TRUST_PROXY=1 the per-address limit counts the forwarded client address; without it every client is the proxy`, {
    timeout: 60_000,
    skip,
  }, async (t) => {
    const s = scope(t, `papo-proxy-${kind}-xff-`);
    const limited = { PAPO_SIGNAL_MAX_CONNECTIONS_PER_IP: '1' };
    const trusting = await start(s, await signal(s, { ...limited, PAPO_SIGNAL_TRUST_PROXY: '1' }));
    const blind = await start(s, await signal(s, limited));
    const open: WebSocket[] = [];
    t.after(() => {
      for (const ws of open) ws.terminate();
    });
    const through = async (proxy: Proxy, from: string, headers?: Record<string, string>) => {
      const d = await dial(s.ca, proxy.port, { from, headers });
      open.push(d.ws);
      return d;
    };
    const refused = async (d: Dialed, why: string) => {
      assert.deepEqual(
        d.first.t === 'error' ? { t: d.first.t, code: d.first.code } : d.first,
        { t: 'error', code: 'rate_limited' },
        why,
      );
      assert.equal(await d.closed, 1013, why);
    };

    // Trusted: one socket from 127.0.0.2 and one from 127.0.0.3 are two clients, each at its cap.
    assert.equal((await through(trusting, '127.0.0.2')).first.t, 'welcome');
    assert.equal(
      (await through(trusting, '127.0.0.3')).first.t,
      'welcome',
      'another client address, its own count',
    );
    await refused(await through(trusting, '127.0.0.2'), 'the same client address again is over its cap');
    // A client that writes its own X-Forwarded-For is still counted as the address the proxy saw:
    // nginx appends that address and the server takes the last entry; Caddy 2.6 (no
    // trusted_proxies) replaces the header with it.
    await refused(
      await through(trusting, '127.0.0.2', { 'X-Forwarded-For': '198.51.100.7' }),
      'a forged X-Forwarded-For is not believed',
    );

    // Not trusted: the server sees the proxy (127.0.0.1) for everyone, so a second client is refused.
    assert.equal((await through(blind, '127.0.0.2')).first.t, 'welcome');
    await refused(await through(blind, '127.0.0.3'), 'without TRUST_PROXY, every client is the proxy');
  });
}

test('nginx: the server pings keep a quiet socket open past proxy_read_timeout; without them nginx cuts it', {
  timeout: 60_000,
  skip: hasNginx ? false : 'nginx is not installed (Debian: apt-get install nginx-light)',
}, async (t) => {
  // The recipe's read timeout outlasts the default ping interval with room for a lost ping.
  const recipe = nginxRecipe();
  const timeout = /proxy_read_timeout (\d+)s;/.exec(recipe);
  assert.ok(timeout?.[1], `the recipe sets proxy_read_timeout: ${recipe}`);
  assert.ok(Number(timeout[1]) * 1000 > 2 * DEFAULTS.pingIntervalMs, 'proxy_read_timeout > 2 pings');
  // The same, scaled down to run in seconds: 4 s in nginx, pings every 1 s (or every minute). The
  // server ends a socket that misses two pings, so the pinged side tolerates a 1-2 s stall.
  const scaled = recipe.replace(/proxy_read_timeout \d+s;/, 'proxy_read_timeout 4s;');
  const s = scope(t, 'papo-proxy-nginx-idle-');
  const pinged = await startNginx(s, await signal(s, { PAPO_SIGNAL_PING_INTERVAL: '1' }), scaled);
  const quiet = await startNginx(s, await signal(s, { PAPO_SIGNAL_PING_INTERVAL: '60' }), scaled);
  const a = await dial(s.ca, pinged.port);
  const b = await dial(s.ca, quiet.port);
  t.after(() => {
    a.ws.terminate();
    b.ws.terminate();
  });
  const started = Date.now();
  const bClosed = await Promise.race([
    b.closed,
    new Promise<'open'>((r) => setTimeout(() => r('open'), 12_000)),
  ]);
  assert.notEqual(bClosed, 'open', 'without pings nginx closes the quiet socket after proxy_read_timeout');
  const cutAfter = Date.now() - started;
  assert.ok(cutAfter >= 3000, `cut after proxy_read_timeout, not before (${cutAfter} ms)`);
  await new Promise((r) => setTimeout(r, Math.max(0, 10_000 - (Date.now() - started))));
  // 10 s on, two and a half proxy_read_timeouts: the pinged socket is open and still works.
  assert.equal(a.ws.readyState, WebSocket.OPEN, 'the pinged socket outlives proxy_read_timeout');
  a.ws.send(JSON.stringify({ t: 'join', topic: hex32(), peer: hex32() }));
  await waitFor('peers on the old socket', () => a.heard.some((m) => m.t === 'peers'), 5000);
});
