// `papo web --no-open` as a user runs it, for the tests of tests/web and the bench: the built
// binary started on a profile's home, its address read from its first line; and the headless
// browser those tests drive (Debian's chromium through puppeteer-core), or why there is none.
import { spawnSync } from 'node:child_process';
import { request } from 'node:http';
import type { Hooks } from './files.js';
import type { McpProcess } from './mcp-process.js';
import { memberEnv, spawnPapo } from './papo.js';
import { type Room, startAgent, statusUntil } from './room.js';

export interface WebServer {
  /** http://127.0.0.1:PORT */
  base: string;
  port: number;
  /** The address printed, with #k=SECRET. */
  url: string;
  secret: string;
  pid: number;
  /** Everything it printed on stderr so far. */
  stderr(): string;
  stop(): Promise<void>;
}

/**
 * Starts `papo web --no-open` on `home`'s profile (`open`: `papo web`, which opens a browser with
 * the xdg-open it finds on env's PATH; `more`: more options, `--port N`); stopped after `t` (or by
 * its stop).
 */
export async function startWeb(
  t: Hooks | null,
  home: string,
  env: Record<string, string> = {},
  open = false,
  more: string[] = [],
): Promise<WebServer> {
  const args = [...(open ? ['web'] : ['web', '--no-open']), ...more];
  const child = spawnPapo(args, { env: memberEnv({ PAPO_HOME: home, ...env }) });
  let out = '';
  let err = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(killer);
  };
  t?.after(stop);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`papo web printed no address: ${out}${err}`)), 15_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:\d+\/#k=[A-Za-z0-9_-]+/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[0]);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`papo web exited ${code}: ${out}${err}`));
    });
  });
  const parsed = new URL(url);
  return {
    base: `http://127.0.0.1:${parsed.port}`,
    port: Number(parsed.port),
    url,
    secret: new URLSearchParams(parsed.hash.slice(1)).get('k') as string,
    pid: child.pid as number,
    stderr: () => err,
    stop,
  };
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One HTTP request with exactly these headers (fetch would not let a test set Host). */
export function http(
  port: number,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path, method: options.method ?? 'GET', headers: options.headers ?? {} },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          body += d;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/**
 * A session of `web`'s, as its page gets one (the secret POSTed to /api/session), and the headers
 * a request of the page carries with it.
 */
export async function webSession(
  web: WebServer,
): Promise<{ session: string; headers: Record<string, string> }> {
  const host = `127.0.0.1:${web.port}`;
  const answer = await http(web.port, '/api/session', {
    method: 'POST',
    headers: { Host: host, Origin: `http://${host}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ k: web.secret }),
  });
  if (answer.status !== 200) throw new Error(`no session: ${answer.status} ${answer.body}`);
  const { session } = JSON.parse(answer.body) as { session: string };
  return { session, headers: { Host: host, Authorization: `Bearer ${session}` } };
}

/** Debian's chromium, or why the browser tests skip (like tests/claude-code without Claude Code). */
export function chromium(): { path: string } | { skip: string } {
  const found = spawnSync('sh', ['-c', 'command -v chromium'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  if (found.status !== 0 || path === '')
    return { skip: 'chromium is not installed (apt-get install chromium; .ci/run installs it)' };
  return { path };
}

/**
 * Debian's chromium, headless, closed after `t`; `args` added to the usual ones. Only for a test
 * that did not skip for want of it (chromium()).
 */
export async function launchChromium(
  t: Hooks,
  args: string[] = [],
): Promise<import('puppeteer-core').Browser> {
  const at = chromium();
  if ('skip' in at) throw new Error(at.skip);
  const { launch } = await import('puppeteer-core');
  const browser = await launch({
    executablePath: at.path,
    headless: true,
    args: ['--no-sandbox', '--headless=new', ...args],
  });
  t.after(() => browser.close());
  return browser;
}

/**
 * The room's two agents, voce's and colega's `papo mcp`, started and linked: each sees the other
 * online. `colegaEnv` is added to colega's environment.
 */
export async function linkedAgents(
  room: Room,
  colegaEnv: Record<string, string> = {},
): Promise<{ voce: McpProcess; colega: McpProcess }> {
  const voce = startAgent(room, room.members.voce);
  await voce.client.initialize();
  const colega = startAgent(room, room.members.colega, colegaEnv);
  await colega.client.initialize();
  await statusUntil(voce.client, /colega \(agent\): online/);
  await statusUntil(colega.client, /voce \(agent\): online/);
  return { voce, colega };
}
