// papo forget NAME: stop waiting for a member who left the room for good (ADR 0063). Messages
// to the room are owed to every member known when they were sent, and stay queued until each one
// confirms; this takes NAME off every queued message and off the known members. The running
// papo mcp owns the queue, so when it runs the command leaves it a request and waits for it.
import { join } from 'node:path';
import type { Command } from 'commander';
import { PapoError } from '../../client/errors.js';
import { forgetWhileStopped, requestForget } from '../../client/room/forget.js';
import { readJsonFile } from '../../client/store/durable-file.js';
import { OUTBOX_FILE, PEERS_FILE } from '../../client/store/profile-files.js';
import { requestTaken } from '../../client/store/profile-requests.js';
import { openProfile, parseOutboxFile, parsePeersFile } from '../../client/store/profile-store.js';
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
      const peersPath = join(profile.dir, PEERS_FILE);
      const outboxPath = join(profile.dir, OUTBOX_FILE);
      const peers = parsePeersFile(await readJsonFile<unknown>(peersPath), peersPath);
      const outbox = parseOutboxFile(await readJsonFile<unknown>(outboxPath), outboxPath);
      const known =
        Object.values(peers).some((p) => sameName(p.name, name)) ||
        outbox.some((m) => (m.owed ?? (m.to ? [m.to] : [])).some((n) => sameName(n, name)));
      if (!known)
        throw new PapoError('unknown_member', t.forgetUnknown(name, profileSuffix(profile.profile)));
      try {
        const { released } = await forgetWhileStopped(profile.dir, name);
        process.stdout.write(`${t.forgotten(name, released)}\n`);
        return;
      } catch (err) {
        if (!(err instanceof PapoError && err.code === 'profile_locked')) throw err;
      }
      // papo mcp runs: it owns the queue; leave it the request.
      const path = await requestForget(profile.dir, name);
      const taken = await requestTaken(path, PICKUP_WAIT_MS);
      process.stdout.write(`${taken ? t.forgottenByAgent(name) : t.forgetLeft(name)}\n`);
    });
}
