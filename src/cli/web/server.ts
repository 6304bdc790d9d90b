// The server of `papo web` (ADR 0106): a hono app on 127.0.0.1 that serves the page and the
// profile's room as JSON (the shapes of api.ts), pushes new log entries by server-sent events, and
// runs a person's say and review decisions through the very functions `papo say` and `papo review`
// use (commands/web.ts).
// Its rules, checked on every request in this order (ADR 0120):
//   1. the Host header names this server (127.0.0.1:PORT or localhost:PORT), else 421: a page of
//      another site that rebinds its name to 127.0.0.1 (DNS rebinding) is refused;
//   2. a POST comes from the page itself (its Origin is this server's), else 403 (CSRF);
//   3. the page's files are anyone's (they hold nothing of the room); every /api/ route but
//      /api/session needs a session of this start in `Authorization: Bearer`, else 401. The page
//      gets one by POSTing the secret made at this start (the address's `#k=`, a fragment no
//      request carries) to /api/session, and keeps it in the tab's sessionStorage. No cookie: a
//      browser would send one to every port of 127.0.0.1. The event stream, which a browser opens
//      without headers, takes the session as `?s=`.
//   4. GET routes only read; what opens a member (/api/members) is a POST. /api/presence asks the
//      profile's running papo mcp over member.sock, which opens nothing.
// Every response carries a strict CSP (no inline script, nothing from elsewhere), nosniff and
// no-referrer. Room text reaches the page already made inert (ADR 0059): the page never sees an
// escape or a bidi override, only their visible forms.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { type Context, Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { LogEntry } from '../../client/wire/messages.js';
import type {
  ActionResult,
  EntriesEvent,
  EntryView,
  MembersReply,
  PresenceReply,
  ProfileChoice,
  ProfilesReply,
  RememberedMemberView,
  ReviewState,
  SessionReply,
  StateReply,
} from './api.js';
import type { LogWatch } from './log-watch.js';
import { entryView } from './views.js';

/** How many sessions one start hands out before it forgets the oldest (a tab each). */
const MAX_SESSIONS = 64;
export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; " +
  "base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** The page's files, served as they are (built into dist next to this module). */
export const PAGE_FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/markdown.js': { file: 'markdown.js', type: 'text/javascript; charset=utf-8' },
  '/markdown-scan.js': { file: 'markdown-scan.js', type: 'text/javascript; charset=utf-8' },
  '/texts.js': { file: 'texts.js', type: 'text/javascript; charset=utf-8' },
  '/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};
const PAGE_DIR = new URL('./page/', import.meta.url);

/** What the server shows and does; the command gives it the profile's readers and actions. */
export interface WebRoom {
  profile: string;
  self: string;
  roomId: string;
  /** The last entries of the log, oldest first, and where the log ended when read. */
  entries(): Promise<LogEntry[]>;
  held(): Promise<ReviewState>;
  members(): Promise<MembersReply>;
  /** Who is online as the profile's running papo mcp sees them; opens nothing. */
  presence(): Promise<PresenceReply>;
  /** The members the profile remembers (peers.json), without a look at the room. */
  remembered(): Promise<RememberedMemberView[]>;
  say(body: string, to: string | undefined, replyTo: string | undefined): Promise<ActionResult>;
  review(action: 'approve' | 'reject', id: string, reason: string | undefined): Promise<ActionResult>;
  watch: LogWatch;
}

/** The profiles the server shows: the one it was started with, and the others asked for by name. */
export interface WebRooms {
  first: string;
  /** The person's language, for the page's words (the CLI's rule: i18n.ts detectLang). */
  lang: 'en' | 'pt';
  list(): ProfileChoice[];
  /** The room of a profile, opened on first use; undefined when there is no such profile. */
  get(profile: string): Promise<WebRoom> | undefined;
}

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

function same(a: string | undefined, b: string): boolean {
  if (a === undefined) return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The app; `port()` is the port it listens on, known once listening. */
export function webApp(rooms: WebRooms, secret: string, port: () => number): Hono {
  const app = new Hono();
  app.use('*', async (c, next) => {
    await next();
    c.res.headers.set('Content-Security-Policy', CSP);
    c.res.headers.set('X-Content-Type-Options', 'nosniff');
    c.res.headers.set('Referrer-Policy', 'no-referrer');
    c.res.headers.set('Cache-Control', 'no-store');
  });
  const sessions = new Set<string>();
  app.use('*', async (c, next) => {
    const hosts = [`127.0.0.1:${port()}`, `localhost:${port()}`];
    const host = c.req.header('host') ?? '';
    if (!hosts.includes(host)) return c.text('421 this server answers only to its own address\n', 421);
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const origin = c.req.header('origin');
      if (origin === undefined || !hosts.map((h) => `http://${h}`).includes(origin))
        return c.text('403 not from this page\n', 403);
    }
    const path = new URL(c.req.url).pathname;
    if (path.startsWith('/api/') && path !== '/api/session') {
      const bearer = /^Bearer ([A-Za-z0-9_-]+)$/.exec(c.req.header('authorization') ?? '')?.[1];
      const given = bearer ?? (path === '/api/events' ? c.req.query('s') : undefined);
      if (given === undefined || !sessions.has(given))
        return c.json(
          { ok: false, lines: ['open the address papo web printed'] } satisfies ActionResult,
          401,
        );
    }
    await next();
  });

  // The secret of this start, once, for a session the page keeps (rule 3).
  app.post('/api/session', async (c) => {
    const input: { k?: unknown } = await c.req.json().catch(() => ({}));
    if (typeof input.k !== 'string' || !same(input.k, secret))
      return c.json({ ok: false, lines: ['wrong secret'] } satisfies ActionResult, 401);
    const session = newSecret();
    sessions.add(session);
    // The oldest goes first (a Set keeps the order of insertion).
    for (const old of sessions) {
      if (sessions.size <= MAX_SESSIONS) break;
      sessions.delete(old);
    }
    return c.json({ session } satisfies SessionReply);
  });

  for (const [path, { file, type }] of Object.entries(PAGE_FILES))
    app.get(path, async (c) => {
      const body = await readFile(new URL(file, PAGE_DIR));
      return c.body(body, 200, { 'Content-Type': type });
    });

  /** The room a request names (`?profile=`), else the one the server was started with. */
  const roomOf = (c: Context) => rooms.get(c.req.query('profile') ?? rooms.first);
  const noSuch = (c: Context) =>
    c.json({ ok: false, lines: ['no such profile'] } satisfies ActionResult, 404);

  app.get('/api/profiles', (c) =>
    c.json({ first: rooms.first, profiles: rooms.list() } satisfies ProfilesReply),
  );

  app.get('/api/state', async (c) => {
    const found = roomOf(c);
    if (found === undefined) return noSuch(c);
    const room = await found;
    const entries = (await room.entries()).flatMap((e) => entryView(e) ?? []);
    return c.json({
      profile: room.profile,
      self: room.self,
      roomId: room.roomId,
      lang: rooms.lang,
      entries,
      review: await room.held(),
      remembered: await room.remembered(),
    } satisfies StateReply);
  });

  app.post('/api/members', async (c) => {
    const found = roomOf(c);
    if (found === undefined) return noSuch(c);
    return c.json(await (await found).members());
  });

  app.get('/api/presence', async (c) => {
    const found = roomOf(c);
    if (found === undefined) return noSuch(c);
    return c.json(await (await found).presence());
  });

  app.get('/api/events', async (c) => {
    const found = roomOf(c);
    if (found === undefined) return noSuch(c);
    const room = await found;
    return streamSSE(c, async (stream) => {
      let closed = false;
      const queue: EntryView[][] = [];
      // A decision is logged before its message leaves held/ (review-decisions.ts): one the log
      // has shown is not held any more, whatever held/ still says in that moment. An id is kept
      // only until held/ no longer has it (ids are never used again).
      const decided = new Set<string>();
      let wake: (() => void) | undefined;
      const off = room.watch.subscribe((entries) => {
        queue.push(entries.flatMap((e) => entryView(e) ?? []));
        wake?.();
      });
      stream.onAbort(() => {
        closed = true;
        wake?.();
      });
      // The page reads the room's state once this stream follows the log (app.ts: nothing missed).
      await stream.writeSSE({ event: 'following', data: '' });
      try {
        while (!closed) {
          const batch = queue.shift();
          if (batch === undefined) {
            // A comment every 15 s keeps proxies and the browser from taking the stream for dead.
            await new Promise<void>((resolve) => {
              wake = resolve;
              setTimeout(resolve, 15_000).unref();
            });
            wake = undefined;
            if (queue.length === 0 && !closed) await stream.write(': idle\n\n');
            continue;
          }
          for (const e of batch) if (e.ev === 'review') decided.add(e.id);
          const review = await room.held();
          const inHeld = new Set(review.held.map((m) => m.id));
          for (const id of decided) if (!inHeld.has(id)) decided.delete(id);
          const held = review.held.filter((m) => !decided.has(m.id));
          await stream.writeSSE({
            event: 'entries',
            data: JSON.stringify({ entries: batch, review: { ...review, held } } satisfies EntriesEvent),
          });
        }
      } finally {
        off();
      }
    });
  });

  app.post('/api/say', async (c) => {
    const found = roomOf(c);
    if (found === undefined) return noSuch(c);
    const room = await found;
    const input: { body?: unknown; to?: unknown; replyTo?: unknown } = await c.req.json().catch(() => ({}));
    const body = typeof input.body === 'string' ? input.body : '';
    const to = typeof input.to === 'string' && input.to.trim() !== '' ? input.to.trim() : undefined;
    const replyTo = typeof input.replyTo === 'string' && input.replyTo !== '' ? input.replyTo : undefined;
    return c.json(await room.say(body, to, replyTo));
  });

  app.post('/api/review', async (c) => {
    const found = roomOf(c);
    if (found === undefined) return noSuch(c);
    const room = await found;
    const input: { action?: unknown; id?: unknown; reason?: unknown } = await c.req.json().catch(() => ({}));
    const action = input.action === 'approve' || input.action === 'reject' ? input.action : undefined;
    if (action === undefined || typeof input.id !== 'string')
      return c.json(
        { ok: false, lines: ['approve or reject, and a message id'] } satisfies ActionResult,
        400,
      );
    const reason = typeof input.reason === 'string' && input.reason.trim() !== '' ? input.reason : undefined;
    return c.json(await room.review(action, input.id, reason));
  });

  return app;
}
