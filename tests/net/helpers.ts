import { type ChildProcess, fork } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type { IceConfig } from '../../src/client/net/ice-config.js';
import { type LinkSignal, parseMeshSignal } from '../../src/client/net/link-signal.js';
import { PeerLink } from '../../src/client/net/peer-link.js';
import { type Coturn, startCoturn } from '../support/coturn.js';
import type { FromAnswerer, ToAnswerer } from './fixtures/remote-answerer.js';
import type { FromMesh, ToMesh } from './fixtures/remote-mesh.js';

export function nodeId(): string {
  return randomBytes(32).toString('hex');
}

/** Two ids, the first the smaller (the offerer). */
export function orderedIds(): [string, string] {
  const a = nodeId();
  const b = nodeId();
  return a < b ? [a, b] : [b, a];
}

export const LOOPBACK_ICE: IceConfig = { servers: [], policy: 'all', source: 'env' };

export function once<T extends unknown[]>(
  emitter: EventEmitter,
  event: string,
  timeoutMs = 15_000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      emitter.off(event, on);
      reject(new Error(`timed out waiting for ${event}`));
    }, timeoutMs);
    function on(...args: unknown[]): void {
      clearTimeout(timer);
      resolve(args as T);
    }
    emitter.once(event, on);
  });
}

export interface LinkPair {
  offerer: PeerLink;
  answerer: () => PeerLink | undefined;
  /** Resolves with the answerer once both sides are open; rejects if either closes first. */
  opened: Promise<PeerLink>;
  close(): Promise<void>;
}

/** An offerer and (made on its offer) an answerer, signalling through an async JSON hop. */
export function linkPair(ice: IceConfig, ids: [string, string] = orderedIds()): LinkPair {
  const [a, b] = ids;
  let answerer: PeerLink | undefined;
  let resolveOpened: (link: PeerLink) => void = () => {};
  let rejectOpened: (err: Error) => void = () => {};
  const opened = new Promise<PeerLink>((resolve, reject) => {
    resolveOpened = resolve;
    rejectOpened = reject;
  });
  // Handled here so that a pair nobody waits on does not raise an unhandled rejection.
  opened.catch(() => {});
  // No timers here: each PeerLink ends itself after its connect timeout.
  let openSides = 0;
  const watch = (side: string, link: PeerLink) => {
    link.once('open', () => {
      openSides += 1;
      if (openSides === 2 && answerer !== undefined) resolveOpened(answerer);
    });
    // After `opened` resolved, a close no longer changes it.
    link.once('close', (reason) => rejectOpened(new Error(`the ${side} closed: ${reason}`)));
  };
  const hop = (signal: LinkSignal, to: () => PeerLink | undefined) => {
    const wire = JSON.stringify(signal);
    setImmediate(() => {
      const parsed = parseMeshSignal(JSON.parse(wire));
      if (parsed !== undefined && parsed.k !== 'knock') to()?.handleSignal(parsed);
    });
  };
  const offerer: PeerLink = new PeerLink({
    localId: a,
    remoteId: b,
    role: 'offerer',
    ice,
    sendSignal: (signal) => {
      if (signal.k === 'offer' && answerer === undefined) {
        answerer = new PeerLink({
          localId: b,
          remoteId: a,
          role: 'answerer',
          linkId: signal.link,
          ice,
          sendSignal: (back) => hop(back, () => offerer),
        });
        watch('answerer', answerer);
      }
      hop(signal, () => answerer);
    },
  });
  watch('offerer', offerer);
  return {
    offerer,
    answerer: () => answerer,
    opened,
    async close() {
      await Promise.all([offerer.close(), answerer?.close()]);
    },
  };
}

/**
 * Makes link pairs until one opens, as the mesh re-offers: a PeerLink is a single attempt, and
 * libdatachannel fails some attempts on its own. On a loaded machine the offerer (our DTLS client)
 * can check the answerer's certificate before libdatachannel stored the answer, and the handshake
 * ends with "unknown CA" (mesh.ts retries at once for this reason). Under PAPO_ICE_POLICY=relay a
 * link that selected a non-relayed pair is refused too. Every pair made is closed through `after`.
 * Fails when no pair opens in `attempts`, with each attempt's reason.
 */
export async function openLinkPair(
  ice: IceConfig,
  after: (fn: () => Promise<void>) => void,
  ids: [string, string] = orderedIds(),
  attempts = 5,
): Promise<{ pair: LinkPair; answerer: PeerLink; failures: string[] }> {
  const failures: string[] = [];
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const pair = linkPair(ice, ids);
    after(() => pair.close());
    try {
      return { pair, answerer: await pair.opened, failures };
    } catch (err) {
      failures.push((err as Error).message);
      await pair.close();
    }
  }
  throw new Error(`no link opened in ${attempts} attempts: ${failures.join('; ')}`);
}

/** Links whose answering end runs in a child process (fixtures/remote-answerer.ts). */
export interface RemoteAnswerer {
  /**
   * Makes offerer attempts until one opens on both ends, as openLinkPair does. The offerer is
   * closed by close(); `remotePath` is the path the child's end reported when it opened.
   */
  open(attempts?: number): Promise<{ offerer: PeerLink; remotePath: string | undefined; failures: string[] }>;
  /** How many times a child that had ended was replaced. */
  restarts(): number;
  /** Has the child's end send `data` to the offerer. */
  send(data: Uint8Array): void;
  /** The next message the child's end received. */
  received(timeoutMs?: number): Promise<Uint8Array>;
  /** Closes the offerer and the child's end, and waits for the child to exit. */
  close(): Promise<void>;
}

const REMOTE_ANSWERER = new URL('./fixtures/remote-answerer.js', import.meta.url);

/**
 * How fixtures are forked: not as test files (fork() would pass on the test process's `--import`
 * of the exit guard and NODE_TEST_CONTEXT), with only stderr shown.
 */
export const FIXTURE_FORK = {
  stdio: ['ignore', 'ignore', 'inherit', 'ipc'] as ('ignore' | 'inherit' | 'ipc')[],
  execArgv: [],
  env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== 'NODE_TEST_CONTEXT')),
};

export function remoteAnswerer(ice: IceConfig, ids: [string, string] = orderedIds()): RemoteAnswerer {
  const [a, b] = ids;
  let offerer: PeerLink | undefined;
  const listeners = new Set<(m: FromAnswerer) => void>();
  // The answering end is the DTLS server, the side libdatachannel's deadlock can freeze (ADR
  // 0055); the child's watchdog then ends it, and the next attempt starts a new child, as Claude
  // Code would start papo mcp again.
  let child: ChildProcess | undefined;
  let restarts = -1;
  const live = (): ChildProcess => {
    if (child !== undefined && child.exitCode === null && child.signalCode === null) return child;
    restarts += 1;
    const made = fork(REMOTE_ANSWERER, [b, a, JSON.stringify(ice)], FIXTURE_FORK);
    made.on('message', (m: FromAnswerer) => {
      if (m.t === 'sig') {
        if (offerer !== undefined && m.s.link === offerer.linkId) offerer.handleSignal(m.s);
        return;
      }
      for (const listener of listeners) listener(m);
    });
    child = made;
    return made;
  };
  const tell = (m: ToAnswerer) => {
    if (child?.connected) child.send(m);
  };

  /** One attempt: resolves with the child's path when both ends are open, rejects on a close. */
  const attempt = (link: PeerLink, answering: ChildProcess) =>
    new Promise<string | undefined>((resolve, reject) => {
      let localOpen = false;
      let remoteOpen: { path: string | undefined } | undefined;
      const done = (err?: Error) => {
        listeners.delete(onRemote);
        link.off('open', onOpen);
        link.off('close', onClose);
        answering.off('exit', onExit);
        if (err) reject(err);
        else resolve(remoteOpen?.path);
      };
      const check = () => {
        if (localOpen && remoteOpen !== undefined) done();
      };
      const onOpen = () => {
        localOpen = true;
        check();
      };
      const onClose = (reason: string) => done(new Error(`the offerer closed: ${reason}`));
      const onExit = (code: number | null, signal: string | null) =>
        done(
          new Error(
            `the answering process ended (${signal ?? `exit ${code}`}); SIGKILL: its watchdog found it frozen (ADR 0055)`,
          ),
        );
      const onRemote = (m: FromAnswerer) => {
        if (m.t === 'open' && m.link === link.linkId) {
          remoteOpen = { path: m.path };
          check();
        } else if (m.t === 'close' && m.link === link.linkId) {
          done(new Error(`the answerer closed: ${m.reason}`));
        }
      };
      listeners.add(onRemote);
      link.on('open', onOpen);
      link.on('close', onClose);
      answering.once('exit', onExit);
    });

  return {
    async open(attempts = 5) {
      const failures: string[] = [];
      for (let i = 1; i <= attempts; i++) {
        const answering = live();
        const link = new PeerLink({
          localId: a,
          remoteId: b,
          role: 'offerer',
          ice,
          sendSignal: (s) => tell({ t: 'sig', s }),
        });
        offerer = link;
        try {
          const remotePath = await attempt(link, answering);
          return { offerer: link, remotePath, failures };
        } catch (err) {
          failures.push((err as Error).message);
          await link.close();
        }
      }
      throw new Error(`no link opened in ${attempts} attempts: ${failures.join('; ')}`);
    },
    restarts: () => Math.max(0, restarts),
    send(data) {
      tell({ t: 'send', data: [...data] });
    },
    received(timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(on);
          reject(new Error('timed out waiting for a message at the child'));
        }, timeoutMs);
        const on = (m: FromAnswerer) => {
          if (m.t !== 'message') return;
          clearTimeout(timer);
          listeners.delete(on);
          resolve(new Uint8Array(m.data));
        };
        listeners.add(on);
      });
    },
    async close() {
      await offerer?.close();
      if (child !== undefined) await endChild(child, { t: 'close' } satisfies ToAnswerer);
    },
  };
}

/** A mesh member in a child process (fixtures/remote-mesh.ts); it echoes link messages. */
export interface RemoteMesh {
  start(config: Omit<Extract<ToMesh, { t: 'start' }>, 't'>): void;
  /** False once the child has exited (its watchdog ends it if it froze: ADR 0055). */
  alive(): boolean;
  /** Its neighbours and their paths, as it sees them now. */
  state(): Promise<FromMesh['neighbours']>;
  /** Closes its mesh and signal client and waits for it to exit (SIGKILL after 5 s). */
  close(): Promise<void>;
}

const REMOTE_MESH = new URL('./fixtures/remote-mesh.js', import.meta.url);

export function remoteMesh(): RemoteMesh {
  const child = fork(REMOTE_MESH, [], FIXTURE_FORK);
  return {
    start(config) {
      child.send({ t: 'start', ...config } satisfies ToMesh);
    },
    alive: () => child.exitCode === null && child.signalCode === null,
    state() {
      return new Promise((resolve, reject) => {
        if (!child.connected) {
          reject(new Error('the remote mesh is gone'));
          return;
        }
        const onMessage = (m: FromMesh) => {
          child.off('exit', onExit);
          resolve(m.neighbours);
        };
        const onExit = () => {
          child.off('message', onMessage);
          reject(new Error('the remote mesh is gone'));
        };
        child.once('message', onMessage);
        child.once('exit', onExit);
        child.send({ t: 'state' } satisfies ToMesh);
      });
    },
    close: () => endChild(child, { t: 'close' } satisfies ToMesh),
  };
}

/** Asks a forked fixture to close (`bye`), waits for it to exit, SIGKILLs it after 5 s. */
export async function endChild(child: ChildProcess, bye: object): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (child.connected) child.send(bye);
  let timer: NodeJS.Timeout | undefined;
  const gone = await Promise.race([
    exited.then(() => true),
    new Promise<boolean>((r) => {
      timer = setTimeout(r, 5000, false);
    }),
  ]);
  clearTimeout(timer);
  if (!gone) {
    child.kill('SIGKILL');
    await exited;
  }
}

export type Turn = Coturn;

/** A real coturn on 127.0.0.1 with TURN REST auth (use-auth-secret), relaying between loopback peers. */
export function startTurn(): Promise<Turn> {
  return startCoturn();
}

/** TURN REST credentials as the signal server mints them (coturn use-auth-secret). */
export function turnRestCredentials(secret: string, id: string, ttlSeconds = 3600) {
  const username = `${Math.floor(Date.now() / 1000) + ttlSeconds}:${id}`;
  const credential = createHmac('sha1', secret).update(username).digest('base64');
  return { username, credential };
}
