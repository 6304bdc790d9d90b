// A last resort against a native deadlock (ADR 0055), for test processes that run WebRTC links in
// their own main thread (the link and mesh tests, their fixtures, every test file through
// exit-guard.ts). papo itself does not need it: its WebRTC runs in a transport process that the
// member's process ends and starts again when it freezes (ADR 0057).
// node-datachannel 0.33.4, the newest release,
// bundles libdatachannel 0.24.5, in which a DTLS handshake can deadlock libjuice's poll thread
// against a thread-pool thread (fixed upstream after that release, libdatachannel PR #1630). From
// then on every call into the library blocks: papo's main thread stops at its next send or close,
// for good, and Claude Code would wait on a papo mcp that never answers again.
//
// A worker thread watches a counter that the main thread's event loop bumps every second. When
// the counter has not moved for `stallSeconds` of the worker's own one-second ticks (ticks, not
// wall time, so a suspended laptop does not count as a stall), the worker says so on stderr and
// ends the whole process with SIGKILL: nothing else can end it, since a JavaScript signal handler
// needs the blocked main thread. Nothing is lost by that: a message is on disk before it is
// acked, the outbox is durable, and the profile lock is taken over after a kill -9.

import { Worker } from 'node:worker_threads';

/** Seconds without a heartbeat from the main thread before the process is ended. */
export const DEFAULT_STALL_SECONDS = 30;

export interface NativeWatchdogOptions {
  /** Default DEFAULT_STALL_SECONDS. */
  stallSeconds?: number;
  /** Who is speaking on stderr (default "papo"). */
  label?: string;
  /** Called if the worker fails (the process then runs unguarded). */
  onError?: (err: Error) => void;
  /**
   * End the process only if it holds node-datachannel (Linux: /proc/self/maps): a main thread held
   * by something else (a test's run of synchronous child processes on a loaded machine) is not the
   * deadlock this guards against, and is left to run. Default false.
   */
  onlyWithNative?: boolean;
}

export interface NativeWatchdog {
  stop(): void;
}

// The worker's code, plain JavaScript evaluated in the worker (no file to find at run time).
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const { writeSync } = require('node:fs');
const beats = new Int32Array(workerData.buffer);
let last = Atomics.load(beats, 0);
let still = 0;
setInterval(() => {
  const now = Atomics.load(beats, 0);
  if (now !== last) { last = now; still = 0; return; }
  still += 1;
  if (still < workerData.stallSeconds) return;
  if (workerData.onlyWithNative) {
    let maps = null;
    try { maps = require('node:fs').readFileSync('/proc/self/maps', 'utf8'); } catch {}
    if (maps !== null && !maps.includes('node_datachannel')) { still = 0; return; }
  }
  try {
    writeSync(2, workerData.label + ': the main thread has not run for ' + still +
      ' s (most likely a deadlock in the native WebRTC library, see docs/transport.md); ending the process\\n');
  } catch {}
  process.kill(process.pid, 'SIGKILL');
}, 1000);
`;

/**
 * Starts a watchdog now. Neither its worker nor its heartbeat keeps the process alive. Returns a
 * handle whose stop() ends both.
 */
export function startNativeWatchdog(options: NativeWatchdogOptions = {}): NativeWatchdog {
  const stallSeconds = options.stallSeconds ?? DEFAULT_STALL_SECONDS;
  if (!Number.isInteger(stallSeconds) || stallSeconds < 2)
    throw new RangeError('stallSeconds must be an integer of at least 2');
  const buffer = new SharedArrayBuffer(4);
  const beats = new Int32Array(buffer);
  const heartbeat = setInterval(() => Atomics.add(beats, 0, 1), 1000);
  heartbeat.unref();
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: {
      buffer,
      stallSeconds,
      label: options.label ?? 'papo',
      onlyWithNative: options.onlyWithNative === true,
    },
    // No resourceLimits: they save no measurable memory (a worker is ~9 MB of Node either way),
    // and a worker that ran out of them would leave the process unguarded.
    stdout: false,
    stderr: false,
  });
  worker.unref();
  // A worker that fails leaves the process as it would be without the watchdog.
  worker.on('error', (err) => {
    clearInterval(heartbeat);
    options.onError?.(err);
  });
  return {
    stop() {
      clearInterval(heartbeat);
      void worker.terminate();
    },
  };
}
