// Sealed signal blobs: everything a member sends another member through the signal server (SDP
// offers and answers, ICE candidates, knocks) travels sealed with the room's signal key, so the
// server operator reads no IP address and cannot forge or alter an offer (the DTLS fingerprint
// rides inside the seal). See docs/transport.md, "Sealed signalling", and ADR 0031.
//
//   blob = base64( nonce(24) || XChaCha20-Poly1305(signalKey, nonce, JSON{from,to,ts,payload},
//                                                   aad "papo/v1/signal") )
//
// The receiver checks, in order: the blob opens, `to` is its own node id, `from` equals the sender
// the server claims, `ts` is within the window, and the nonce was not seen within the window. A blob
// that fails any check is dropped and counted by reason; opening never throws.

import { PEER_PATTERN } from '../../signal-protocol.js';
import { NONCE_BYTES, open, SIGNAL_AAD, seal, TAG_BYTES } from '../wire/room-crypto.js';

/** How far a blob's timestamp may be from our clock, either way. */
export const SIGNAL_WINDOW_MS = 60_000;

export type SignalDropReason =
  | 'malformed' // not base64, or shorter than nonce + tag
  | 'open_failed' // wrong key or altered in transit
  | 'bad_plaintext' // opened, but not the JSON shape we seal
  | 'misaddressed' // `to` is not our node id
  | 'wrong_sender' // `from` differs from the sender the server claims
  | 'stale' // `ts` outside the window
  | 'replayed'; // nonce already accepted within the window

export const SIGNAL_DROP_REASONS: readonly SignalDropReason[] = [
  'malformed',
  'open_failed',
  'bad_plaintext',
  'misaddressed',
  'wrong_sender',
  'stale',
  'replayed',
];

export type OpenResult =
  | { ok: true; from: string; payload: unknown }
  | { ok: false; reason: SignalDropReason };

/** Seals `payload` from `from` to `to`; returns the base64 blob for the wire. */
export function sealSignal(
  signalKey: Uint8Array,
  from: string,
  to: string,
  payload: unknown,
  now: number = Date.now(),
): string {
  if (signalKey.length !== 32) throw new RangeError('signal key must be 32 bytes');
  const plaintext = new TextEncoder().encode(JSON.stringify({ from, to, ts: now, payload }));
  return Buffer.from(seal(signalKey, plaintext, SIGNAL_AAD)).toString('base64');
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/**
 * Opens blobs addressed to one node and remembers accepted nonces for the replay check. One
 * opener per signal client: the replay memory must span every blob that client receives.
 */
export class SignalOpener {
  readonly #key: Uint8Array;
  readonly #localId: string;
  readonly #windowMs: number;
  /** Accepted nonce (hex) -> the time after which a blob carrying it is stale anyway. */
  readonly #seen = new Map<string, number>();
  readonly #dropped: Record<SignalDropReason, number> = {
    malformed: 0,
    open_failed: 0,
    bad_plaintext: 0,
    misaddressed: 0,
    wrong_sender: 0,
    stale: 0,
    replayed: 0,
  };

  constructor(signalKey: Uint8Array, localId: string, windowMs: number = SIGNAL_WINDOW_MS) {
    if (signalKey.length !== 32) throw new RangeError('signal key must be 32 bytes');
    if (!PEER_PATTERN.test(localId)) throw new TypeError('local id must be 64 lower-case hex characters');
    this.#key = signalKey;
    this.#localId = localId;
    this.#windowMs = windowMs;
  }

  /** Drop counts by reason since this opener was made (a copy). */
  dropped(): Record<SignalDropReason, number> {
    return { ...this.#dropped };
  }

  /** Opens `data` that the server says comes from `claimedFrom`. Never throws. */
  open(data: unknown, claimedFrom: string, now: number = Date.now()): OpenResult {
    const result = this.#open(data, claimedFrom, now);
    if (!result.ok) this.#dropped[result.reason] += 1;
    return result;
  }

  #open(data: unknown, claimedFrom: string, now: number): OpenResult {
    if (typeof data !== 'string' || data.length % 4 !== 0 || !BASE64.test(data)) {
      return { ok: false, reason: 'malformed' };
    }
    const sealed = new Uint8Array(Buffer.from(data, 'base64'));
    if (sealed.length < NONCE_BYTES + TAG_BYTES) return { ok: false, reason: 'malformed' };
    let plaintext: Uint8Array;
    try {
      plaintext = open(this.#key, sealed, SIGNAL_AAD);
    } catch {
      return { ok: false, reason: 'open_failed' };
    }
    let body: unknown;
    try {
      body = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(plaintext));
    } catch {
      return { ok: false, reason: 'bad_plaintext' };
    }
    if (typeof body !== 'object' || body === null) return { ok: false, reason: 'bad_plaintext' };
    const { from, to, ts, payload } = body as Record<string, unknown>;
    if (
      typeof from !== 'string' ||
      typeof to !== 'string' ||
      typeof ts !== 'number' ||
      !Number.isFinite(ts)
    ) {
      return { ok: false, reason: 'bad_plaintext' };
    }
    if (to !== this.#localId) return { ok: false, reason: 'misaddressed' };
    if (from !== claimedFrom) return { ok: false, reason: 'wrong_sender' };
    if (Math.abs(now - ts) > this.#windowMs) return { ok: false, reason: 'stale' };
    // A blob is only acceptable until ts + window, so its nonce need not be kept longer than that.
    this.#forgetExpired(now);
    const nonce = Buffer.from(sealed.subarray(0, NONCE_BYTES)).toString('hex');
    if (this.#seen.has(nonce)) return { ok: false, reason: 'replayed' };
    this.#seen.set(nonce, ts + this.#windowMs);
    return { ok: true, from, payload };
  }

  #forgetExpired(now: number): void {
    for (const [nonce, until] of this.#seen) {
      if (until < now) this.#seen.delete(nonce);
    }
  }
}
