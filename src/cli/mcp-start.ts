// What `papo mcp` runs, reached two ways: through commander (commands/mcp.ts) and, for the lines
// agent CLIs start it with, straight from main.ts without commander (mcp-args.ts, issue 28). Its
// static imports are what the server needs before it answers `initialize`; the member's are
// loaded after, by dynamic import.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { RoomMember } from '../client/member-api.js';
import { papoHome, profileDir } from '../client/store/home.js';
import { PROFILE_FILE } from '../client/store/profile-files.js';
import { normaliseAbout } from '../client/wire/about.js';
import { isProfileName } from '../client/wire/names.js';
import type { PushView } from '../mcp/push-contract.js';

export interface McpStart {
  /** The profile's name: --profile, else PAPO_PROFILE, else "default" (not checked: see peek). */
  profile: string;
  /** --about's value, already checked by the caller (ADR 0059: a bad one stops papo mcp first). */
  about: string | undefined;
  serverVersion: string;
  env: NodeJS.ProcessEnv;
}

/** Starts the MCP server on stdio. */
export async function startMcp({ profile, about, serverVersion, env }: McpStart): Promise<void> {
  const home = papoHome(env);
  const dir = profileDir(home, profile);
  const [{ runMcpServer }, { peekProfile }] = await Promise.all([
    import('../mcp/run.js'),
    import('../client/store/profile-file.js'),
  ]);
  const peek = () => (isProfileName(profile) ? peekProfile(dir) : null);
  // Claude Code's plugin started papo in a project that never chose a profile: it answers, and
  // joins no room (issue 45).
  const room = notSetUp(env)
    ? await idleRoom()
    : {
        describe: peek,
        openMember: (push: () => PushView) => {
          // The announced `about`: --about, else the profile's, else nothing: the room learns only
          // what the person chose to tell it, never a folder's name (issue 45). Only the flag was
          // checked: a hand-edited profile is made one printable line of at most 200 characters,
          // as receivers would make it anyway.
          const announced = about ?? normaliseAbout(peek()?.about ?? '') ?? '';
          return openMember(profile, home, announced, env, push);
        },
      };
  runMcpServer({ profile, serverVersion, env, ...room });
}

/** What papo mcp says and opens in a project never set up: its instructions say so, and no member. */
async function idleRoom() {
  const [{ MemberUnavailable }, { NOT_READY, NOT_SET_UP }] = await Promise.all([
    import('../mcp/tool-result.js'),
    import('../mcp/texts.js'),
  ]);
  return {
    describe: (): typeof NOT_SET_UP => NOT_SET_UP,
    openMember: () => Promise.reject(new MemberUnavailable(NOT_READY.notSetUp)),
  };
}

/**
 * Opens the member of `profile` (lock, identity, signal client, mesh) announcing `about`. The
 * network stack is loaded here, by dynamic import, after the initialize response.
 */
async function openMember(
  profile: string,
  home: string,
  about: string,
  env: NodeJS.ProcessEnv,
  push: () => PushView,
): Promise<RoomMember> {
  // The profile first: a room that is not configured must not pay for loading WebRTC. Where its
  // file is there, the transport process is forked now, to start while this one loads the member
  // (it joins nothing before the member holds the lock and sends it the room: early-fork.ts).
  const early = await import('../client/transport/early-fork.js');
  if (existsSync(join(profileDir(home, profile), PROFILE_FILE))) early.forkTransportEarly(env);
  try {
    const { openProfile } = await import('../client/store/profile-store.js');
    await openProfile({ home, profile });
    return await openAgent(profile, home, about, env, push);
  } finally {
    // Adopted by now when the member opened; ended when it did not.
    early.dropEarlyTransport();
  }
}

async function openAgent(
  profile: string,
  home: string,
  about: string,
  env: NodeJS.ProcessEnv,
  push: () => PushView,
): Promise<RoomMember> {
  // WebRTC runs in a transport process that this one supervises and starts again when it freezes
  // or dies (ADR 0057): this process never loads the native library, so it always answers.
  const { openMember: open } = await import('../client/open-member.js');
  const { createDiagnostics } = await import('../mcp/diagnostics.js');
  const diagnostics = createDiagnostics(env.PAPO_LOG, process.stderr);
  const log = (line: string) => diagnostics.log('info', line);
  // papo mcp exits within 70 ms of a stop signal: its transport finishes closing by itself.
  const opened = await open({
    home,
    profile,
    env,
    mode: 'agent',
    about,
    // `papo status` asks this member how messages reach the agent (ADR 0118).
    push,
    log,
    waitForTransportExit: false,
    // The signal server's own code is loaded by this hook only when this member hosts it.
    hostSignalServer: (await import('./local-signal-server.js')).hostLocalSignalServer,
  });
  return opened.member;
}

/**
 * Started by Claude Code's papo plugin (its entry sets PAPO_PLUGIN=1) in a project that was never
 * set up for papo: `papo install --plugin` writes PAPO_PROFILE into each project it sets up, so
 * without it the project never chose a room (issue 45).
 */
export function notSetUp(env: NodeJS.ProcessEnv): boolean {
  return env.PAPO_PLUGIN?.trim() === '1' && (env.PAPO_PROFILE?.trim() ?? '') === '';
}
