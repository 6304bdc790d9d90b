// papo web [--port N] [--no-open]: the room in a browser tab (ADR 0106). A server on 127.0.0.1
// only, on a free port unless --port, shows the profile's log as `papo log -f` reads it, the held
// messages as `papo review` reads them, and runs a say or a decision through the functions of
// `papo say` and `papo review`. Idle, it holds no member: the network (node-datachannel, the
// transport process) is loaded only when a say, a rejection's reason or a look at who is online
// needs it, and closed when that is done.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createAdaptorServer } from '@hono/node-server';
import type { Command } from 'commander';
import { messageOf, PapoError } from '../../client/errors.js';
import type { MemberStatus } from '../../client/member-api.js';
import type { OpenedMember } from '../../client/open-member.js';
import { writeFileDurable } from '../../client/store/durable-file.js';
import { profileDir } from '../../client/store/home.js';
import { readLogTail } from '../../client/store/log-file.js';
import { type ProfilePeek, peekProfile } from '../../client/store/profile-file.js';
import { LOG_FILE, WEB_OPENER_FILE } from '../../client/store/profile-files.js';
import type { ReviewDecision } from '../../client/store/review.js';
import { inertText } from '../../client/wire/inert-text.js';
import { validateProfileName } from '../../client/wire/names.js';
import { checkedReason, decideAndTell } from '../actions/review-decision.js';
import { checkedSay } from '../actions/say-input.js';
import { closeMember, sayResult } from '../actions/say-result.js';
import { type CliContext, checkedProfile, home, lang, text } from '../context.js';
import { errorText } from '../i18n.js';
import { openUrlCommand } from '../open-url.js';
import { reviewTexts } from '../review-texts.js';
import type {
  ActionResult,
  LiveMemberView,
  MembersReply,
  PresenceReply,
  ProfileChoice,
  RememberedMemberView,
} from '../web/api.js';
import { watchLog } from '../web/log-watch.js';
import type { WebRoom, WebRooms } from '../web/server.js';
import { newSecret, webApp } from '../web/server.js';
import { heldView } from '../web/views.js';

/** Entries the page starts with (older ones: papo log -n). */
const FIRST_ENTRIES = 1000;
/** How long a look at who is online waits for the room to show itself. */
const LOOK_MS = 8_000;

const reviewModule = () => import('../../client/store/review.js');

interface WebOptions {
  port?: string;
  open: boolean;
}

export function register(program: Command, ctx: CliContext): void {
  const t = text(ctx);
  program
    .command('web')
    .description(t.webHelp)
    .option('--port <port>', t.webPortHelp)
    .option('--no-open', t.webNoOpenHelp)
    .action(async (opts: WebOptions) => {
      const port = opts.port === undefined ? 0 : Number(opts.port);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new RangeError(t.webBadPort(opts.port ?? ''));
      // The peek (profile.json alone, no keys, no database): what an idle server needs to show.
      const name = checkedProfile(ctx);
      const dir = profileDir(home(ctx), name);
      const profile = peekProfile(dir);
      if (profile === null) {
        // The full reader says why (missing or not a profile), in the words every command uses.
        await (await import('../../client/store/profile-store.js')).openProfile({
          home: home(ctx),
          profile: name,
        });
        throw new PapoError('profile_corrupt', `${dir} holds no papo profile`);
      }
      // The profile it was started with, and the others of PAPO_HOME for the page's picker, each
      // opened (its log followed) the first time the page asks for it.
      const opened = new Map<string, Promise<WebRoom>>();
      const rooms: WebRooms = {
        first: name,
        lang: lang(ctx),
        list: () => listProfiles(home(ctx)),
        get: (wanted) => {
          const known = opened.get(wanted);
          if (known) return known;
          const at = profileDir(home(ctx), wanted);
          const peek = wanted === name ? profile : isProfileName(wanted) ? peekProfile(at) : null;
          if (peek === null) return undefined;
          const room = openRoom(profileCtx(ctx, wanted), wanted, at, peek);
          opened.set(wanted, room);
          return room;
        },
      };
      const secret = newSecret();
      let listening = 0;
      const app = webApp(rooms, secret, () => listening);
      const server = createAdaptorServer({ fetch: app.fetch }) as Server;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => resolve());
      });
      listening = (server.address() as AddressInfo).port;
      // The secret in the fragment: the page reads it, no request line carries it (ADR 0120).
      const url = `http://127.0.0.1:${listening}/#k=${secret}`;
      process.stdout.write(`${t.webOpenAt(url)}\n`);
      const opener = opts.open ? await openerFile(dir, url) : undefined;
      if (opener !== undefined) openBrowser(pathToFileURL(opener).href);
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      if (opener !== undefined) await rm(opener, { force: true });
      for (const room of opened.values()) (await room).watch.close();
      server.closeAllConnections?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      process.exit(0);
    });
}

/** A profile's room as the server shows it: its log followed from its end as it is now. */
async function openRoom(ctx: CliContext, name: string, dir: string, profile: ProfilePeek): Promise<WebRoom> {
  const logPath = join(dir, LOG_FILE);
  const watch = watchLog(logPath, await logSize(logPath), (err) =>
    process.stderr.write(`papo web: ${messageOf(err)}\n`),
  );
  return {
    profile: name,
    self: profile.name,
    roomId: profile.roomId,
    watch,
    entries: () => readLogTail(logPath, FIRST_ENTRIES),
    // The review gate's readers load with the first look at it (the page's first request).
    held: async () => {
      const { readHeld, readReviewSettings } = await reviewModule();
      return { on: readReviewSettings(dir).on, held: readHeld(dir).map(heldView) };
    },
    members: () => members(ctx, dir),
    remembered: () => rememberedMembers(dir),
    presence: () => presence(dir),
    say: async (body, to, replyTo) => {
      const result = await webSay(ctx, body, to, replyTo);
      watch.poke();
      return result;
    },
    review: async (action, id, reason) => {
      const result = await webReview(ctx, dir, action, id, reason);
      watch.poke();
      return result;
    },
  };
}

/** The command's context for another profile of the same home (its say and review run as there). */
function profileCtx(ctx: CliContext, name: string): CliContext {
  if (name === checkedProfile(ctx)) return ctx;
  return { profileFlag: () => undefined, env: { ...ctx.env, PAPO_PROFILE: name } };
}

function isProfileName(name: string): boolean {
  try {
    validateProfileName(name);
    return true;
  } catch {
    return false;
  }
}

/** The profiles of PAPO_HOME: every folder whose profile.json the peek reads, by name. */
function listProfiles(papoHome: string): ProfileChoice[] {
  let names: string[];
  try {
    names = readdirSync(dirname(profileDir(papoHome, 'default')), { withFileTypes: true })
      .filter((e) => e.isDirectory() && isProfileName(e.name))
      .map((e) => e.name);
  } catch {
    return [];
  }
  return names.sort().flatMap((name) => {
    const peek = peekProfile(profileDir(papoHome, name));
    return peek === null ? [] : [{ profile: name, self: inertText(peek.name, 'line'), roomId: peek.roomId }];
  });
}

async function logSize(path: string): Promise<number> {
  const { stat } = await import('node:fs/promises');
  return stat(path).then(
    (s) => s.size,
    () => 0,
  );
}

/** xdg-open (open on macOS, rundll32 on Windows): detached, its failure is only a line. */
/**
 * The file the browser is given instead of the address (ADR 0120): a page that goes on to it, in
 * the profile's folder (0700), 0600, written without following a link. A browser's command line is
 * anyone's to read on the machine (/proc/PID/cmdline); this file is only this user's. Removed when
 * papo web stops.
 */
async function openerFile(dir: string, url: string): Promise<string> {
  const file = join(dir, WEB_OPENER_FILE);
  const html =
    '<!doctype html><meta charset="utf-8"><title>papo web</title>' +
    `<meta http-equiv="refresh" content="0;url=${url}">` +
    `<p><a href="${url}">papo web</a></p>\n`;
  await writeFileDurable(file, html, 0o600);
  return file;
}

function openBrowser(url: string): void {
  const [command, args] = openUrlCommand(url, process.platform);
  try {
    const child = spawn(command, args, { detached: true, stdio: 'ignore', windowsHide: true });
    child.on('error', () =>
      process.stderr.write(`papo web: could not run ${command}; open the address yourself\n`),
    );
    child.unref();
  } catch {
    // reported by the error event
  }
}

/** A say from the page: what `papo say` checks and runs, its outcome in the words `papo say` prints. */
async function webSay(
  ctx: CliContext,
  raw: string,
  to: string | undefined,
  replyTo: string | undefined,
): Promise<ActionResult> {
  let body: string;
  try {
    body = checkedSay(text(ctx), { body: raw, to, replyTo });
  } catch (err) {
    return { ok: false, lines: [inertText(errorText(err, lang(ctx)), 'line')] };
  }
  return sayResult(ctx, body, to, replyTo);
}

/** A decision from the page: what `papo review approve|reject` does, and the reason told. */
async function webReview(
  ctx: CliContext,
  dir: string,
  action: 'approve' | 'reject',
  id: string,
  reason: string | undefined,
): Promise<ActionResult> {
  const rt = reviewTexts(lang(ctx));
  const held = (await reviewModule()).readHeld(dir);
  if (!held.some((x) => x.id === id)) return { ok: false, lines: [rt.unknownId(id)] };
  const lines: string[] = [];
  try {
    const why = checkedReason(rt, reason);
    const decision: ReviewDecision =
      action === 'approve'
        ? { approve: [id], reject: [] }
        : { approve: [], reject: [id], ...(why ? { reason: why } : {}) };
    const keep = (line: string) => lines.push(inertText(line, 'line'));
    await decideAndTell(ctx, rt, dir, decision, held, { line: keep, note: keep });
    return { ok: true, lines };
  } catch (err) {
    return { ok: false, lines: [...lines, errorText(err, lang(ctx))] };
  }
}

/** How long the page's look at presence waits for the running papo mcp's answer. */
const PRESENCE_ANSWER_MS = 3_000;

/**
 * Who is online, as the profile's running papo mcp sees them (`papo status`'s question over
 * member.sock, ADR 0103: it opens nothing, so the page may ask every few seconds), with why an
 * offline member is offline when papo knows; `running: false` when no papo mcp answers.
 */
async function presence(dir: string): Promise<PresenceReply> {
  const remembered = await rememberedMembers(dir);
  const { askStatus } = await import('../../client/person/handed-say.js');
  const view = await askStatus(dir, 0, PRESENCE_ANSWER_MS).catch(() => undefined);
  if (view === undefined) return { running: false, remembered };
  const onTopic = new Set(view.signal.peers);
  const live = view.members.map((x) =>
    liveView(x, x.node === view.node, view.signal.joined, onTopic.has(x.node)),
  );
  return { running: true, live, remembered };
}

/** A member as the page shows it, with why it is offline (status.ts's memberLine's reading). */
function liveView(x: MemberStatus, own: boolean, joined: boolean, onTopic: boolean): LiveMemberView {
  const why = x.online || own ? undefined : !joined ? 'signal-down' : onTopic ? 'no-link' : undefined;
  return {
    name: inertText(x.name, 'line'),
    kind: x.kind,
    online: x.online,
    yourAgent: own,
    ...(x.path !== undefined ? { path: x.path } : {}),
    ...(x.about !== undefined ? { about: inertText(x.about, 'line') } : {}),
    ...(why !== undefined ? { why } : {}),
    ...(x.online && x.quietSeconds !== undefined ? { quietSeconds: x.quietSeconds } : {}),
  };
}

/** The members the profile remembers (peers.json), their names and words made inert. */
async function rememberedMembers(dir: string): Promise<RememberedMemberView[]> {
  const store = await import('../../client/store/profile-store.js');
  const { peers } = await store.readRememberedMembers(dir);
  return Object.values(peers).map((p) => ({
    name: inertText(p.name, 'line'),
    kind: p.kind,
    ...(p.about !== undefined ? { about: inertText(p.about, 'line') } : {}),
  }));
}

/**
 * The room panel: the members the profile remembers, and, asked for (`papo status`'s path), who
 * is online now and by which path, through an ephemeral member opened for the look and closed.
 */
async function members(ctx: CliContext, dir: string): Promise<MembersReply> {
  const remembered = await rememberedMembers(dir);
  let member: OpenedMember | undefined;
  try {
    const session = await import('../room-session.js');
    const { lookAtRoom } = await import('../../client/person/room-view.js');
    member = await session.openEphemeral(ctx);
    const m = member;
    const own = m.profile.identity.nodeId;
    // papo status's look (lookAtRoom): the same wait for the room and the same list.
    const view = await lookAtRoom(m, m.profile, LOOK_MS);
    const live = view.members.map((x) => ({
      name: inertText(x.name, 'line'),
      kind: x.kind,
      online: x.online,
      yourAgent: x.node === own,
      ...(x.path !== undefined ? { path: x.path } : {}),
      ...(x.about !== undefined ? { about: inertText(x.about, 'line') } : {}),
    }));
    return { remembered, live };
  } catch (err) {
    return { remembered, error: errorText(err, lang(ctx)) };
  } finally {
    await closeMember(member);
  }
}
