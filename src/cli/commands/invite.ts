// papo invite: prints the invite of this profile's room again, to call someone else in.
import type { Command } from 'commander';
import { openProfile } from '../../client/store/profile-store.js';
import { encodeInvite } from '../../client/wire/invite.js';
import { deriveRoomKeys } from '../../client/wire/room-crypto.js';
import { type CliContext, checkedProfile, home, styles, text } from '../context.js';
import { printLines } from '../output.js';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('invite')
    .description('print an invite to call someone else into your room')
    .action(async () => {
      const t = text(ctx);
      const profile = await openProfile({ home: home(ctx), profile: checkedProfile(ctx) });
      const { roomId } = deriveRoomKeys(profile.secret);
      // The room's own signal URL, not a local PAPO_SIGNAL override: the invite is for others.
      const invite = encodeInvite(profile.secret, profile.signalUrl ?? '');
      printLines([t.inviteFor(roomId, profile.profile), '', `  ${styles(ctx).bold(invite)}`, '', t.theyRun]);
    });
}
