// papo new: makes a room (a fresh secret) in this profile and prints the invite.
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { probeSignal } from '../../client/net/signal-probe.js';
import { signalTokenFor } from '../../client/net/signal-token.js';
import { createProfile } from '../../client/store/profile-store.js';
import { checkAbout } from '../../client/wire/about.js';
import { encodeInvite } from '../../client/wire/invite.js';
import { validateMemberName } from '../../client/wire/names.js';
import { deriveRoomKeys, generateSecret } from '../../client/wire/room-crypto.js';
import {
  DEFAULT_SIGNAL_URL,
  isLoopbackSignalUrl,
  parseSignalAddress,
  parseSignalUrl,
  signalUrlOf,
} from '../../client/wire/signal-url.js';
import { type CliContext, checkedProfile, hint, home, profileSuffix, styles, text } from '../context.js';
import type { Messages } from '../i18n.js';
import { printLines } from '../output.js';

interface NewOptions {
  name?: string;
  about?: string;
  force?: boolean;
  signal?: string;
  check: boolean;
}

/** How long `papo new` waits for a server on another machine to say whether it wants a pin and token. */
const NEW_CHECK_MS = 4000;

/**
 * Without --name, the person's user name as a member name (the printed line of `papo signal
 * --public` is run as it is): its ASCII letters (accents dropped), digits and `-_.`, at most 32;
 * undefined when nothing is left of it.
 */
function defaultMemberName(env: NodeJS.ProcessEnv): string | undefined {
  let user = env.USER ?? env.LOGNAME ?? '';
  if (user === '') {
    try {
      user = userInfo().username;
    } catch {
      // no user name for this uid (a container's): --name is needed
    }
  }
  // Accents dropped (José → Jose), then what the name rules do not allow.
  const name = user
    .normalize('NFD')
    .replace(/[^A-Za-z0-9._-]/g, '')
    .slice(0, 32);
  return name === '' ? undefined : name;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('new')
    .description('create a new room and print the invite to send to your colleague')
    .option('--name <name>', 'your name in the room (1-32 of A-Za-z0-9-_.; default: your user name)')
    .option('--about <text>', 'what you work on, shown to the other members')
    .option('--force', 'replace the existing profile (keeps your identity and log)')
    .option(
      '--signal <address>',
      'signal server of the room, as papo signal --public prints it (wss://HOST:PORT/#pin=…&token=…) or a plain URL (default: the local one, this machine only)',
    )
    .option(
      '--no-check',
      'do not ask the signal server whether the address carries what it needs (its pin and token)',
    )
    .action(async (opts: NewOptions) => {
      const t = text(ctx);
      const profile = checkedProfile(ctx);
      const given = opts.name ?? defaultMemberName(ctx.env);
      if (given === undefined) throw new RangeError(t.newNameNeeded);
      hint(ctx, { name: given });
      const name = validateMemberName(given);
      // Shown to the other members: one printable line, refused otherwise (ADR 0059).
      const about = opts.about === undefined ? undefined : checkAbout(opts.about);
      const signalUrl = roomSignalUrl(opts.signal, ctx.env);
      // Before anything is written: a room whose address its own server refuses is one nobody meets in.
      if (opts.check && signalUrl !== undefined) {
        const refused = await addressRefused(signalUrl, ctx.env, t);
        if (refused !== undefined) throw new RangeError(refused);
      }
      const secret = generateSecret();
      const input = { home: home(ctx), profile, name, secret, force: opts.force === true };
      const { replaced } = await createProfile({
        ...input,
        ...(about !== undefined ? { about } : {}),
        ...(signalUrl !== undefined ? { signalUrl } : {}),
      });
      const { roomId } = deriveRoomKeys(secret);
      const s = styles(ctx);
      const suffix = profileSuffix(profile);
      const lines = [t.roomCreated(roomId, name, profile)];
      if (replaced) lines.push(t.replaced(profile));
      lines.push(
        '',
        t.sendInvite,
        '',
        `  ${s.bold(encodeInvite(secret, signalUrl ?? ''))}`,
        '',
        t.theyRun,
        '',
      );
      // Shown without the fragment: the pin and the token travel in the invite only (ADR 0089).
      const effective = signalUrlOf(signalUrl ?? DEFAULT_SIGNAL_URL);
      if (isLoopbackSignalUrl(effective)) {
        lines.push(...t.localOnlyNew(effective, name, suffix), '');
      } else {
        lines.push(t.signalServer(effective), '');
      }
      lines.push(...t.nextSteps(suffix));
      printLines(lines);
    });
}

/**
 * Why the server at `address` will refuse every member of a room that carries it as it is, or
 * undefined. A server set up by `papo signal --public` has a self-signed certificate and wants a
 * token; only the line it printed carries its pin and token (ADR 0089). Given the plain URL
 * instead, the room was made, its invite sent, and every member then met "is it running, and
 * reachable" (issue 40). Anything else the server says (it is down, it answers) makes no refusal:
 * `papo doctor` and the members say that when it matters.
 */
async function addressRefused(
  signal: string,
  env: NodeJS.ProcessEnv,
  t: Messages,
): Promise<string | undefined> {
  const address = parseSignalAddress(signal, '--signal');
  // Only a server with TLS, as papo signal --public runs: over plain ws:// a token never travels
  // to another machine at all (ADR 0060), and on loopback it is the server papo mcp starts itself.
  if (!/^(wss|https):/.test(address.url)) return undefined;
  let token: string | undefined;
  try {
    token = signalTokenFor(address, env);
  } catch {
    return undefined; // a PAPO_SIGNAL_TOKEN that cannot be used is said by the members and doctor
  }
  const probe = await probeSignal({ url: address.url, token, pin: address.pin, timeoutMs: NEW_CHECK_MS });
  if (probe.outcome === 'certificate' && probe.problem === 'self_signed' && address.pin === undefined)
    return t.newSignalNeedsPin(address.url);
  if (probe.outcome === 'unauthorized' && token === undefined) return t.newSignalNeedsToken(address.url);
  return undefined;
}

/**
 * The signal URL the new room carries: --signal, else PAPO_SIGNAL (so that a user who set it for
 * every command gets invites that work for colleagues too), else none (the local default).
 */
function roomSignalUrl(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  if (flag !== undefined) return parseSignalUrl(flag, '--signal');
  const fromEnv = env.PAPO_SIGNAL;
  if (fromEnv !== undefined && fromEnv.trim() !== '') return parseSignalUrl(fromEnv, 'PAPO_SIGNAL');
  return undefined;
}
