// papo join: stores the room of an invite in this profile.
import type { Command } from 'commander';
import { createProfile } from '../../client/store/profile-store.js';
import { checkAbout } from '../../client/wire/about.js';
import { decodeInvite } from '../../client/wire/invite.js';
import { validateMemberName } from '../../client/wire/names.js';
import { deriveRoomKeys } from '../../client/wire/room-crypto.js';
import { effectiveSignalUrl, isLoopbackSignalUrl, parseSignalUrl } from '../../client/wire/signal-url.js';
import { type CliContext, checkedProfile, hint, home, profileSuffix, text } from '../context.js';
import { printLines } from '../output.js';
import { readInvite } from '../read-invite.js';

interface JoinOptions {
  name: string;
  about?: string;
  force?: boolean;
  signal?: string;
}

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
      const effective = effectiveSignalUrl(signalUrl, ctx.env);
      const { replaced } = await createProfile({
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
      else lines.push(t.signalServer(effective), '');
      lines.push(...t.nextSteps(profileSuffix(profile)));
      printLines(lines);
    });
}
