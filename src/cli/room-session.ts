// What `papo say` and `papo status` share: an ephemeral member of the profile's room (it never
// stores, never acks and is never remembered, so it runs beside the profile's own papo mcp; `say`
// signs as the profile's person, `status` with a throw-away key: ADR 0064), and a way to wait for
// the room to show itself.
import type { OpenedMember } from '../client/open-member.js';
import { type CliContext, checkedProfile, home } from './context.js';
import { hostLocalSignalServer } from './local-signal-server.js';

export async function openEphemeral(ctx: CliContext, signAsPerson = false): Promise<OpenedMember> {
  // WebRTC runs in a transport process of its own (ADR 0057): this one never loads it.
  const { openMember } = await import('../client/open-member.js');
  const log = ctx.env.PAPO_LOG ? (line: string) => process.stderr.write(`papo: ${line}\n`) : undefined;
  return openMember({
    home: home(ctx),
    profile: checkedProfile(ctx),
    env: ctx.env,
    mode: 'ephemeral',
    signAsPerson,
    // The command exits at once; its transport finishes closing (and releasing TURN) by itself.
    waitForTransportExit: false,
    hostSignalServer: hostLocalSignalServer,
    ...(log ? { log } : {}),
  });
}

// The wait and its rule for the topic are the say's own (person-say.ts): papo web's look waits
// with them, as papo status's (lookAtRoom, person/room-view.ts) does.
export { topicHeard, waitFor } from '../client/person/person-say.js';

/** Ends the command: closes the member and exits with the status already set. */
export async function finish(opened: OpenedMember | undefined): Promise<never> {
  const closing = opened?.member.close();
  await Promise.race([closing, new Promise((r) => setTimeout(r, 500))]);
  process.exit(process.exitCode ?? 0);
}
