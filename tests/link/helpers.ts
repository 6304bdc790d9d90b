import { createHmac, randomBytes } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type { IceConfig } from '../../src/client/ice-config.js';
import { type LinkSignal, PeerLink, parseLinkSignal } from '../../src/client/peer-link.js';
import { type Coturn, startCoturn } from '../support/coturn.js';

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

/** Polls `check` until it returns true; rejects after `timeoutMs`. */
export async function until(check: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export interface LinkPair {
  offerer: PeerLink;
  answerer: () => PeerLink | undefined;
  opened: Promise<PeerLink>;
  close(): Promise<void>;
}

/** An offerer and (made on its offer) an answerer, signalling through an async JSON hop. */
export function linkPair(ice: IceConfig, ids: [string, string] = orderedIds()): LinkPair {
  const [a, b] = ids;
  let answerer: PeerLink | undefined;
  let resolveOpened: (link: PeerLink) => void = () => {};
  const opened = new Promise<PeerLink>((resolve) => {
    resolveOpened = resolve;
  });
  const hop = (signal: LinkSignal, to: () => PeerLink | undefined) => {
    const wire = JSON.stringify(signal);
    setImmediate(() => {
      const parsed = parseLinkSignal(JSON.parse(wire));
      if (parsed !== undefined) to()?.handleSignal(parsed);
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
        const made = answerer;
        const both = Promise.all([
          offerer.state === 'open' ? undefined : once(offerer, 'open'),
          once(made, 'open'),
        ]);
        void both.then(
          () => resolveOpened(made),
          () => {},
        );
      }
      hop(signal, () => answerer);
    },
  });
  return {
    offerer,
    answerer: () => answerer,
    opened,
    async close() {
      await Promise.all([offerer.close(), answerer?.close()]);
    },
  };
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
