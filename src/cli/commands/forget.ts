// papo forget NAME: stop waiting for a member who left the room for good (ADR 0063). Messages
// to the room are owed to every member known when they were sent, and stay queued until each one
// confirms; this takes NAME off every queued message and off the known members. The running
// papo mcp owns the queue, so when it runs the command leaves it a request and waits for it.
import type { Command } from 'commander';
import { PapoError } from '../../client/errors.js';
import { forgetMember, knowsMember } from '../../client/room/forget.js';
import { openProfile } from '../../client/store/profile-store.js';
import { sameName, validateMemberName } from '../../client/wire/names.js';
import { type CliContext, checkedProfile, hint, home, profileSuffix, text } from '../context.js';

/** How long to wait for a running papo mcp to take the request (it looks every second). */
const PICKUP_WAIT_MS = 5_000;

export function register(program: Command, ctx: CliContext): void {
  program
    .command('forget')
    .description(text(ctx).forgetHelp)
    .argument('<name>', text(ctx).forgetNameHelp)
    .action(async (name: string) => {
      const t = text(ctx);
      hint(ctx, { name });
      validateMemberName(name);
      const profile = await openProfile({ home: home(ctx), profile: checkedProfile(ctx) });
      if (sameName(name, profile.name)) throw new PapoError('forget_self', t.forgetSelf(name));
      // Read-only look first, so a typo is told rather than sent to the running member.
      // The files' own readers: a damaged one is refused by name (profile_corrupt), never a TypeError.
      if (!(await knowsMember(profile.dir, name)))
        throw new PapoError('unknown_member', t.forgetUnknown(name, profileSuffix(profile.profile)));
      // papo mcp, when it runs, owns the queue: it is left the request.
      const done = await forgetMember(profile.dir, name, PICKUP_WAIT_MS);
      const line =
        done.by === 'here'
          ? t.forgotten(name, done.released)
          : done.taken
            ? t.forgottenByAgent(name)
            : t.forgetLeft(name);
      process.stdout.write(`${line}\n`);
    });
}
