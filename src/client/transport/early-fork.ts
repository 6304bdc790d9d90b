// The transport process forked ahead of its member (ADR 0091). Its node start and the load of
// node-datachannel take about 150 ms; forked when papo mcp begins to open the member, they run
// while this process loads the member's modules, reads the profile and takes its lock, instead of
// after. The early child does nothing until a TransportProcess with the same env adopts it and
// sends it the room (its `init`): before the lock is held, it has joined no topic, so a second
// papo mcp on a profile in use displaces nobody. One never adopted is ended by dropEarlyTransport(),
// or when this process exits (its IPC channel closes, and it ends itself).
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * The transport process's entry (beside this file): transport-child.ts and everything it imports
 * but node-datachannel, as one file the build makes (scripts/bundle-transport.mjs, ADR 0110), which
 * starts 35-50 ms sooner than the same modules loaded one by one.
 */
export const TRANSPORT_ENTRY = fileURLToPath(new URL('./transport-child.bundle.js', import.meta.url));

let early: { child: ChildProcess; env: NodeJS.ProcessEnv } | undefined;
let forked = false;

/** Forks the transport process of the member about to open with `env`; once per process. */
export function forkTransportEarly(env: NodeJS.ProcessEnv): void {
  if (forked) return;
  forked = true;
  let child: ChildProcess;
  try {
    child = forkTransport(env);
  } catch {
    return; // TransportProcess forks its own, and reports what fails then
  }
  child.on('error', () => {}); // a fork that fails: the adopter finds it gone and forks again
  // Until adopted, it must not keep this process alive (a papo mcp whose member never opens).
  child.unref();
  child.channel?.unref();
  early = { child, env };
}

/** The early child for `env`, if one is waiting and alive: the caller owns it from now on. */
export function adoptEarlyTransport(env: NodeJS.ProcessEnv): ChildProcess | undefined {
  const taken = early;
  if (taken === undefined || taken.env !== env) return undefined;
  early = undefined;
  const { child } = taken;
  if (!child.connected || child.exitCode !== null || child.signalCode !== null) return undefined;
  child.ref();
  child.channel?.ref();
  return child;
}

/** Ends the early child nobody adopted (the member did not open). */
export function dropEarlyTransport(): void {
  const taken = early;
  early = undefined;
  if (taken?.child.connected) taken.child.disconnect();
}

/**
 * Set when the running Node refused the transport's V8 options (a Node this code does not know
 * yet): every later start of this process forks plain node, whose only cost is lite mode's memory.
 */
let plainNode = false;

/** The running Node refused `execArgv` at start (node's exit code 9, "bad option"). */
export function transportOptionsRefused(): void {
  plainNode = true;
}

/** Node's exit code for an option it does not know ("bad option", "Invalid Argument"). */
export const BAD_OPTION_EXIT = 9;

/**
 * V8's options for the transport process, as the running Node takes them (ADR 0105, ADR 0111):
 * lite mode (no optimising compiler: 8-9 MB less resident at idle, no cost measured on its latency
 * or CPU, whose work is moving frames between the IPC channel and node-datachannel). Lite mode has
 * no WebAssembly; where V8 still has `--expose-wasm` (before V8 13, Node 22 and older), saying
 * `--no-expose-wasm` after it keeps V8 from warning on stderr that it turned node's default off.
 * V8 13 (Node 24) took that option away, and node refuses to start with an option it does not know.
 */
export function transportExecArgv(v8Version: string = process.versions.v8): string[] {
  if (plainNode) return [];
  const major = Number.parseInt(v8Version, 10);
  return Number.isInteger(major) && major < 13 ? ['--lite-mode', '--no-expose-wasm'] : ['--lite-mode'];
}

/** The transport process as TransportProcess forks it: plain node, its output on our stderr. */
export function forkTransport(
  env: NodeJS.ProcessEnv,
  entry = TRANSPORT_ENTRY,
  execArgv: readonly string[] = transportExecArgv(),
): ChildProcess {
  return fork(entry, [], {
    // Not the flags of this process (a test runner's, a loader's): the transport's own.
    execArgv: [...execArgv],
    env,
    // stdout too goes to our stderr: this process's stdout may be the MCP channel.
    stdio: ['ignore', 2, 2, 'ipc'],
    serialization: 'json',
  });
}
