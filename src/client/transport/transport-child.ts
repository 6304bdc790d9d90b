// The transport process (ADR 0057): a member's signal client, TURN bridges and WebRTC links, run
// apart from the member so that a freeze of the native WebRTC library (ADR 0055) stops only this
// process, which the member's process then ends and starts again (transport-process.ts).
//
// It is started by fork() with an IPC channel and learns the room from the first message, never
// from argv or env. It writes nothing on stdout (the member's stdout may be an MCP channel; the
// parent points this process's stdout at its own stderr anyway), and it ends when the member's
// process goes away (the IPC channel disconnects), closing its links first so that their TURN
// allocations are given back.

import { messageOf } from '../errors.js';
import type { LinkPath } from '../net/health.js';
import { NetworkStack } from '../net/network-stack.js';
import { disableNativeCleanup } from '../net/peer-link.js';
import type { FromTransport, ToTransport, TransportInit } from './transport-wire.js';

/** How often the links' paths are read again (a relayed link may turn direct, and back). */
const PATH_CHECK_MS = 5000;

let stack: NetworkStack | undefined;
let closing: Promise<void> | undefined;
const paths = new Map<string, LinkPath | null>();

/**
 * Tells the member's process. The channel may close at any moment (the member stops first, and
 * this process closes its links after it): a send that fails then is reported to the callback,
 * which keeps it from becoming an 'error' event on `process` — an EPIPE stack trace on the
 * terminal the two share. 'disconnect' ends this process.
 */
function tell(message: FromTransport): void {
  if (!process.connected) return;
  try {
    process.send?.(message, undefined, {}, ignoreGone);
  } catch {
    // The channel closed between the check and the send: the same as above.
  }
}
function ignoreGone(): void {
  // Nobody is left to tell: the member's process is gone.
}

function log(line: string): void {
  tell({ t: 'log', line });
}

async function start(init: TransportInit): Promise<void> {
  // Test-only: a transport that dies at start every time (tests/mcp/e2e-transport.test.ts).
  if (process.env.PAPO_TEST_TRANSPORT_FAIL === 'start') {
    tell({ t: 'fatal', message: 'injected start failure (PAPO_TEST_TRANSPORT_FAIL)' });
    process.exit(70);
  }
  // This process ends with process.exit(); node-datachannel's cleanup() would only delay it.
  disableNativeCleanup();
  try {
    // The meeting as the member's process sent it, less the message's tag, the key back in bytes.
    const { t, signalKey, ...meeting } = init;
    stack = await NetworkStack.open({
      ...meeting,
      signalKey: Buffer.from(signalKey, 'hex'),
      env: process.env,
      log,
      onTurnGrant: (event) =>
        tell(
          'granted' in event
            ? { t: 'turn-grant', grant: event.granted }
            : { t: 'turn-gone', relayed: event.gone },
        ),
    });
  } catch (err) {
    tell({ t: 'fatal', message: messageOf(err) });
    process.exit(70);
  }
  const { mesh } = stack;
  const s = stack;
  mesh.on('link-open', (peer) => {
    const path = mesh.path(peer);
    paths.set(peer, path ?? null);
    tell({ t: 'link-open', peer, ...(path ? { path } : {}) });
  });
  mesh.on('link-close', (peer) => {
    paths.delete(peer);
    tell({ t: 'link-close', peer });
  });
  mesh.on('link-message', (peer, data) =>
    tell({
      t: 'link-message',
      peer,
      data: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64'),
    }),
  );
  mesh.on('peer-left', (peer) => tell({ t: 'peer-left', peer }));
  s.onSignalChange(() => tellSignalState(s));
  setInterval(checkPaths, PATH_CHECK_MS).unref();
  tell({ t: 'ready' });
  tellSignalState(s);
}

let lastSignalState = '';

/** Says the signal state when it differs from what was said last. */
function tellSignalState(s: NetworkStack): void {
  const state = s.signalState();
  const text = JSON.stringify(state);
  if (text === lastSignalState) return;
  lastSignalState = text;
  tell({ t: 'signal-state', state });
}

function checkPaths(): void {
  const mesh = stack?.mesh;
  if (mesh === undefined) return;
  const changed: Record<string, LinkPath | null> = {};
  let any = false;
  for (const [peer, was] of paths) {
    const now = mesh.path(peer) ?? null;
    if (now !== was) {
      paths.set(peer, now);
      changed[peer] = now;
      any = true;
    }
  }
  if (any) tell({ t: 'paths', paths: changed });
}

/** Closes the links (giving TURN allocations back) and the signal connection, then exits. */
function shutdown(): Promise<void> {
  closing ??= (async () => {
    // Whatever happens in the close, this process ends within a few seconds.
    setTimeout(() => process.exit(0), 4000).unref();
    await stack?.close();
    process.exit(0);
  })();
  return closing;
}

process.on('message', (raw: ToTransport) => {
  switch (raw.t) {
    case 'init':
      if (stack === undefined && closing === undefined) void start(raw);
      break;
    case 'send': {
      const data = Buffer.from(raw.data, 'base64');
      stack?.mesh.send(raw.peer, new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      break;
    }
    case 'ping':
      // Answered from the event loop: a loop that a native call blocked cannot answer.
      tell({ t: 'pong', n: raw.n });
      // Counters (dropped blobs) change without an event: the heartbeat carries them along.
      if (stack !== undefined) tellSignalState(stack);
      break;
    case 'redial':
      stack?.signal.dialNow();
      break;
    case 'close':
      void shutdown();
      break;
  }
});
// The member's process ended (or closed the channel): nobody is left to carry frames for.
process.on('disconnect', () => void shutdown());
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void shutdown());
