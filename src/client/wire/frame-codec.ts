// Frames as they cross the wire, bound once to a room and a signer (ADR 0064): sealed with the
// room's frame key (frames.ts, room-crypto.ts) and signed by the sender's Ed25519 identity, the key
// whose public half is the frame's `node`. The room seal keeps outsiders out; the signature says
// which member wrote a frame, so no member can write as another, alter a frame it forwards, or
// acknowledge in another's name.
//
// What is signed: "papo/v1 frame signature\n" + the room's topic + "\n" + the frame's JSON without
// its `sig` (encodeFrame puts `sig` last, so the receiver recovers exactly those bytes by cutting
// it off, whatever the decoder then normalises). The topic binds a signature to its room: a
// member of two rooms cannot carry a frame from one into the other.
//
// Sign and verify use node:crypto (OpenSSL): 0.2 ms and 0.5 ms here, against 1.9 ms and 5.3 ms for
// @noble/curves, on the path of every message and every ack. The signatures are the same
// (Ed25519 is deterministic; tests/wire/frame-codec.test.ts cross-checks with noble).
import { PapoError } from '../errors.js';
import { shortId } from '../log.js';
import {
  decodeFrame,
  encodeFrame,
  envelopeOf,
  type Frame,
  MAX_SEALED_FRAME_BYTES,
  msgFrame,
} from './frames.js';
import type { Identity } from './identity.js';
import { FRAME_AAD, open, seal } from './room-crypto.js';
import { Signer } from './signer.js';

const CONTEXT = 'papo/v1 frame signature\n';
/** `,"sig":"<128 hex>"}` at the very end of a signed frame's JSON. */
const SIG_TAIL = /,"sig":"([0-9a-f]{128})"\}$/;

/** A frame as the wire delivers it: signed, its signature checked against its `node`. */
export type SignedFrame = Frame & { sig: string };

export class FrameCodec {
  readonly nodeId: string;
  #frameKey: Uint8Array;
  #context: string;
  #signer: Signer;

  /** `topic`: the room's topic (hex), the context every signature is bound to. */
  constructor(frameKey: Uint8Array, topic: string, signer: Identity) {
    this.#frameKey = frameKey;
    this.#context = `${CONTEXT}${topic}\n`;
    this.#signer = new Signer(signer);
    this.nodeId = signer.nodeId;
  }

  /** Signs a frame of ours (its `node` must be our node id) and returns it with `sig`. */
  sign<F extends Frame>(frame: F): F & { sig: string } {
    if (signerOf(frame) !== this.nodeId) throw new TypeError('a frame is signed by its own node');
    const { sig: _old, ...rest } = frame;
    const unsigned = rest as unknown as Frame;
    const bytes = Buffer.from(this.#context + encodeFrame(unsigned), 'utf8');
    return { ...frame, sig: this.#signer.sign(bytes).toString('hex') };
  }

  /** Seals a signed frame as it is (ours, or one kept to be sent again: a stored message). */
  seal(frame: SignedFrame): Uint8Array {
    const sealed = seal(this.#frameKey, new TextEncoder().encode(encodeFrame(frame)), FRAME_AAD);
    if (sealed.length > MAX_SEALED_FRAME_BYTES) throw new RangeError('sealed frame larger than 64 KiB');
    return sealed;
  }

  /** Signs and seals a frame of ours. */
  signAndSeal(frame: Frame): Uint8Array {
    return this.seal(this.sign(frame));
  }

  /**
   * Opens, decodes and checks a frame from the wire, its times against `now`, the receiver's clock
   * (frame-time.ts). PapoError 'open_failed' (not sealed with the room key), 'invalid_frame', or
   * 'bad_signature' (unsigned, or not signed by its `node`).
   */
  open(sealed: Uint8Array, now = Date.now()): SignedFrame {
    if (!(sealed instanceof Uint8Array) || sealed.length > MAX_SEALED_FRAME_BYTES)
      throw new PapoError('invalid_frame', 'invalid frame: not bytes of at most 64 KiB');
    const plain = open(this.#frameKey, sealed, FRAME_AAD);
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(plain);
    } catch {
      throw new PapoError('invalid_frame', 'invalid frame: not UTF-8');
    }
    const frame = decodeFrame(text, now);
    const tail = SIG_TAIL.exec(text);
    if (tail === null || frame.sig === undefined)
      throw new PapoError('bad_signature', 'the frame is not signed');
    // A `missed` frame carries a stored message with its sender's signature of the msg it was
    // (catch-up, ADR 0063): check it against that msg's bytes, which encodeFrame gives back exactly.
    const unsigned =
      frame.t === 'missed'
        ? encodeFrame(msgFrame(withoutSig(envelopeOf(frame))))
        : `${text.slice(0, tail.index)}}`;
    const signed = Buffer.from(`${this.#context}${unsigned}`, 'utf8');
    if (!this.#signer.verify(signerOf(frame), signed, Buffer.from(frame.sig, 'hex')))
      throw new PapoError('bad_signature', `the frame is not signed by ${shortId(signerOf(frame))}`);
    return frame as SignedFrame;
  }
}

function withoutSig<T extends { sig?: string }>(value: T): T {
  const { sig: _sig, ...rest } = value;
  return rest as T;
}

/** The node id whose key signs a frame: every frame names it in `node`. */
export function signerOf(frame: Frame): string {
  return frame.node;
}
