// What `papo say` and `papo status` share: an ephemeral member of the profile's room (a fresh
// identity that never stores, never acks and is never remembered, so it runs beside the
// profile's own papo mcp), and a way to wait for the room to show itself.
import type { OpenedMember } from '../client/open-member.js';
import { type CliContext, checkedProfile, home } from './context.js';

export async function openEphemeral(ctx: CliContext): Promise<OpenedMember> {
  const [{ openMember }, { disableNativeCleanup }, { armNativeWatchdog }] = await Promise.all([
    import('../client/open-member.js'),
    import('../client/peer-link.js'),
    import('../client/native-watchdog.js'),
  ]);
  // The command ends with process.exit(); node-datachannel's cleanup would only delay it.
  disableNativeCleanup();
  // A command that a native deadlock froze is ended rather than left hanging (ADR 0055); the
  // watchdog starts with the first link that may be relayed.
  armNativeWatchdog();
  const log = ctx.env.PAPO_LOG ? (line: string) => process.stderr.write(`papo: ${line}\n`) : undefined;
  return openMember({
    home: home(ctx),
    profile: checkedProfile(ctx),
    env: ctx.env,
    mode: 'ephemeral',
    ...(log ? { log } : {}),
  });
}

/** Resolves true as soon as `done()` holds (checked on every room event), false after `ms`. */
export function waitFor(member: OpenedMember, ms: number, done: () => boolean): Promise<boolean> {
  if (done()) return Promise.resolve(true);
  return new Promise((resolve) => {
    const check = () => {
      if (!done()) return;
      finish(true);
    };
    const tick = setInterval(check, 100);
    const timer = setTimeout(() => finish(false), ms);
    const events = ['online', 'message', 'delivered'] as const;
    for (const e of events) member.node.on(e, check);
    member.signal.on('peers', check);
    function finish(value: boolean): void {
      clearInterval(tick);
      clearTimeout(timer);
      for (const e of events) member.node.off(e, check);
      member.signal.off('peers', check);
      resolve(value);
    }
  });
}

/** True once the signal server answered our join and nobody else is on the topic. */
export function topicIsEmpty(member: OpenedMember): boolean {
  return member.signal.joined && member.signal.peers().length === 0;
}

/** Ends the command: closes the member and exits with the status already set. */
export async function finish(member: OpenedMember | undefined): Promise<never> {
  const closing = member?.node.close();
  await Promise.race([closing, new Promise((r) => setTimeout(r, 500))]);
  process.exit(process.exitCode ?? 0);
}
