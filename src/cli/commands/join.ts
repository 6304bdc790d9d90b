// papo join: stores the room of an invite in this profile, then asks the room's signal server at
// once whether it answers and accepts the token (with the pin the address carries: ADR 0089), and
// says so in one line. The join never fails on that answer: the room is stored either way, and a
// server that is down now is met once it answers; a refused token or key is named with its fix.
import type { Command } from 'commander';
import { probeSignal } from '../../client/net/signal-probe.js';
import { signalTokenFor, tokenMayTravel } from '../../client/net/signal-token.js';
import { createProfile } from '../../client/store/profile-store.js';
import { checkAbout } from '../../client/wire/about.js';
import { decodeInvite } from '../../client/wire/invite.js';
import { validateMemberName } from '../../client/wire/names.js';
import { deriveRoomKeys } from '../../client/wire/room-crypto.js';
import {
  effectiveSignalAddress,
  isLoopbackSignalUrl,
  parseSignalUrl,
  type SignalAddress,
} from '../../client/wire/signal-url.js';
import { type CliContext, checkedProfile, hint, home, lang, profileSuffix, text } from '../context.js';
import { errorText, type JoinCheck, type Messages } from '../i18n.js';
import { printLines } from '../output.js';
import { readInvite } from '../read-invite.js';

interface JoinOptions {
  name: string;
  about?: string;
  force?: boolean;
  signal?: string;
  check: boolean;
}

/** How long `papo join` waits for the signal server's welcome. */
const JOIN_CHECK_MS = 4000;

export function register(program: Command, ctx: CliContext): void {
  program
    .command('join')
    .description('join a room with the invite you received')
    .argument(
      '[invite]',
      'the invite (papo1...); leave it out to read it from standard input or a hidden prompt, so it stays out of the process list and your shell history',
    )
    .requiredOption('--name <name>', 'your name in the room (1-32 of A-Za-z0-9-_.)')
    .option('--about <text>', 'what you work on, shown to the other members')
    .option('--force', 'replace the existing profile (keeps your identity and log)')
    .option('--signal <url>', 'use this signal server instead of the one in the invite')
    .option('--no-check', "do not ask the room's signal server whether it answers and accepts the token")
    .action(async (inviteArg: string | undefined, opts: JoinOptions) => {
      const t = text(ctx);
      const profile = checkedProfile(ctx);
      hint(ctx, { name: opts.name });
      const name = validateMemberName(opts.name);
      // Shown to the other members: one printable line, refused otherwise (ADR 0059).
      const about = opts.about === undefined ? undefined : checkAbout(opts.about);
      // From stdin unless given: an argument is visible in /proc/<pid>/cmdline and shell history.
      const inviteText = inviteArg ?? (await readInvite(t.invitePrompt));
      const invite = decodeInvite(inviteText);
      const flag = opts.signal !== undefined ? parseSignalUrl(opts.signal, '--signal') : undefined;
      const signalUrl = flag ?? (invite.signalUrl !== '' ? invite.signalUrl : undefined);
      // An invalid PAPO_SIGNAL stops here, before anything is written.
      const address = effectiveSignalAddress(signalUrl, ctx.env);
      const effective = address.url;
      const { replaced, profile: made } = await createProfile({
        home: home(ctx),
        profile,
        name,
        secret: invite.secret,
        force: opts.force === true,
        ...(about !== undefined ? { about } : {}),
        ...(signalUrl !== undefined ? { signalUrl } : {}),
      });
      const { roomId } = deriveRoomKeys(invite.secret);
      const lines = [t.joined(roomId, name, profile)];
      if (replaced) lines.push(t.replaced(profile));
      lines.push('');
      if (isLoopbackSignalUrl(effective)) lines.push(...t.localOnlyJoin(effective), '');
      else lines.push(t.signalServer(effective));
      const check = opts.check ? await checkSignal(address, made.identity.nodeId, ctx, t) : undefined;
      if (check !== undefined) lines.push(check);
      if (!isLoopbackSignalUrl(effective) || check !== undefined) lines.push('');
      lines.push(...t.nextSteps(profileSuffix(profile)));
      printLines(lines);
    });
}

/**
 * One line on the room's signal server: it answers (and accepts the token), or what is wrong.
 * Undefined for the local server on this machine (plain ws:// on loopback), which papo mcp starts.
 */
async function checkSignal(
  address: SignalAddress,
  peer: string,
  ctx: CliContext,
  t: Messages,
): Promise<string | undefined> {
  const { url, pin } = address;
  if (url.startsWith('ws://') && isLoopbackSignalUrl(url)) return undefined;
  let token: string | undefined;
  try {
    token = signalTokenFor(address, ctx.env);
  } catch (err) {
    return t.joinCheck('token_invalid', url, errorText(err, lang(ctx)));
  }
  const probe = await probeSignal({ url, token, pin, peer, timeoutMs: JOIN_CHECK_MS });
  if (probe.outcome === 'certificate') return t.joinCertificate(url, probe.problem);
  const sent = token !== undefined && tokenMayTravel(url);
  const outcome: JoinCheck =
    probe.outcome === 'welcome'
      ? sent
        ? 'accepted'
        : 'welcome'
      : probe.outcome === 'refused'
        ? 'not_papo'
        : probe.outcome;
  return t.joinCheck(outcome, url, 'detail' in probe ? probe.detail : '');
}
