// The binary frames of a file transfer (docs/decisions/0121-sealed-attachments.md, "Chunks"):
// attach-chunk, attach-want, attach-ack, attach-stop. Binary because a chunk is 63 KiB of bytes:
// base64 in JSON would add a third and a parse per chunk. Each is sealed with the room's frame key
// under its own aad, so an attachment frame never opens as a frame nor a frame as one, and signed
// by its sender (as every frame is, ADR 0064), so no other member can poison a transfer.
//
// Layout, big-endian: kind (1) | from (32) | to (32) | message id (5) | file index (1) | the kind's
// fields | Ed25519 signature (64) of "papo/v1 attach signature\n" + topic + "\n" + what precedes it.
// Decoding is total: a valid frame or PapoError('invalid_frame'/'open_failed'/'bad_signature').
import { PapoError } from '../errors.js';
import type { Identity } from '../wire/identity.js';
import { MAX_SEALED_FRAME_BYTES } from '../wire/limits.js';
import { MESSAGE_ID_PATTERN, NODE_ID_PATTERN } from '../wire/names.js';
import { open, seal } from '../wire/room-crypto.js';
import { Signer } from '../wire/signer.js';
import { CHUNK_BYTES, MAX_FILES, MAX_OFFSET, MAX_RANGES } from './constants.js';
import type { ManifestEntry } from './manifest.js';
import { type Range, RangeSet } from './ranges.js';

/** aad of sealed attachment frames. */
export const ATTACH_AAD: Uint8Array = Buffer.from('papo/v1/attach', 'utf8');
const SIGNATURE_CONTEXT = 'papo/v1 attach signature\n';
const SIG_BYTES = 64;
const NODE_BYTES = 32;
const ID_BYTES = 5;
/** kind, from, to, id, file index. */
const HEAD_BYTES = 1 + NODE_BYTES + NODE_BYTES + ID_BYTES + 1;
const OFFSET_BYTES = 6;
const CHUNK_HEAD_BYTES = HEAD_BYTES + OFFSET_BYTES + 4;
const RANGE_BYTES = OFFSET_BYTES * 2;

const KINDS = { chunk: 1, want: 2, ack: 3, stop: 4 } as const;
export type AttachKind = keyof typeof KINDS;

/** Why a receiver stops a file (ADR 0121, "attach-stop"). */
export type StopReason = 'too_large' | 'member_full' | 'rejected' | 'corrupt';
const STOP_REASONS: readonly StopReason[] = ['too_large', 'member_full', 'rejected', 'corrupt'];

/** What every attachment frame names: who sends it, to whom, for which message's which file. */
export interface AttachAddress {
  /** The sender's node id (hex): the key that signs the frame. */
  from: string;
  /** The node id it is addressed to (hex). */
  to: string;
  /** The message whose manifest lists the file. */
  id: string;
  /** The file's index in that manifest. */
  file: number;
}

export type AttachFrame =
  | (AttachAddress & { kind: 'chunk'; offset: number; bytes: Uint8Array })
  /** The ranges the receiver holds: send what is not in them. */
  | (AttachAddress & { kind: 'want'; have: Range[] })
  /** Whole, its SHA-256 and size those of the manifest. */
  | (AttachAddress & { kind: 'ack' })
  | (AttachAddress & { kind: 'stop'; why: StopReason });

function invalid(reason: string): PapoError {
  return new PapoError('invalid_frame', `invalid attachment frame: ${reason}`);
}

function writeOffset(buf: Buffer, value: number, at: number): void {
  buf.writeUIntBE(value, at, OFFSET_BYTES);
}

/** The plaintext of a frame, without its signature. Misuse (a field out of range) is a RangeError. */
export function encodeAttachFrame(frame: AttachFrame): Buffer {
  if (!NODE_ID_PATTERN.test(frame.from) || !NODE_ID_PATTERN.test(frame.to))
    throw new RangeError('not a node id');
  if (!MESSAGE_ID_PATTERN.test(frame.id)) throw new RangeError('not a message id');
  if (!Number.isInteger(frame.file) || frame.file < 0 || frame.file >= MAX_FILES)
    throw new RangeError('file index out of range');
  let size = HEAD_BYTES;
  switch (frame.kind) {
    case 'chunk':
      if (frame.bytes.length < 1 || frame.bytes.length > CHUNK_BYTES)
        throw new RangeError('chunk size out of range');
      if (
        !Number.isSafeInteger(frame.offset) ||
        frame.offset < 0 ||
        frame.offset + frame.bytes.length > MAX_OFFSET + 1
      )
        throw new RangeError('chunk offset out of range');
      size = CHUNK_HEAD_BYTES + frame.bytes.length;
      break;
    case 'want':
      if (RangeSet.parse(frame.have, MAX_OFFSET) === null) throw new RangeError('not a list of ranges');
      size = HEAD_BYTES + 2 + RANGE_BYTES * frame.have.length;
      break;
    case 'stop':
      size = HEAD_BYTES + 1;
      break;
    case 'ack':
      break;
  }
  const buf = Buffer.alloc(size);
  buf[0] = KINDS[frame.kind];
  buf.write(frame.from, 1, 'hex');
  buf.write(frame.to, 1 + NODE_BYTES, 'hex');
  buf.write(frame.id, 1 + 2 * NODE_BYTES, 'hex');
  buf[HEAD_BYTES - 1] = frame.file;
  switch (frame.kind) {
    case 'chunk':
      writeOffset(buf, frame.offset, HEAD_BYTES);
      buf.writeUInt32BE(frame.bytes.length, HEAD_BYTES + OFFSET_BYTES);
      buf.set(frame.bytes, CHUNK_HEAD_BYTES);
      break;
    case 'want':
      buf.writeUInt16BE(frame.have.length, HEAD_BYTES);
      frame.have.forEach(([a, b], i) => {
        writeOffset(buf, a, HEAD_BYTES + 2 + i * RANGE_BYTES);
        writeOffset(buf, b, HEAD_BYTES + 2 + i * RANGE_BYTES + OFFSET_BYTES);
      });
      break;
    case 'stop':
      buf[HEAD_BYTES] = STOP_REASONS.indexOf(frame.why) + 1;
      break;
    case 'ack':
      break;
  }
  return buf;
}

/**
 * A frame from its plaintext (without the signature). Every length is exact, every field within
 * its bounds; a chunk's bytes are a view into `plain`, not a copy.
 */
export function decodeAttachFrame(plain: Uint8Array): AttachFrame {
  if (!(plain instanceof Uint8Array) || plain.length < HEAD_BYTES) throw invalid('too short');
  const buf = Buffer.from(plain.buffer, plain.byteOffset, plain.length);
  const kind = (Object.keys(KINDS) as AttachKind[]).find((k) => KINDS[k] === buf[0]);
  if (kind === undefined) throw invalid('unknown kind');
  const from = buf.toString('hex', 1, 1 + NODE_BYTES);
  const to = buf.toString('hex', 1 + NODE_BYTES, 1 + 2 * NODE_BYTES);
  if (from === to) throw invalid('addressed to its sender');
  const id = buf.toString('hex', 1 + 2 * NODE_BYTES, HEAD_BYTES - 1);
  const file = buf[HEAD_BYTES - 1] as number;
  if (file >= MAX_FILES) throw invalid('file index out of range');
  const address = { from, to, id, file };
  switch (kind) {
    case 'chunk': {
      if (buf.length < CHUNK_HEAD_BYTES) throw invalid('chunk too short');
      const offset = buf.readUIntBE(HEAD_BYTES, OFFSET_BYTES);
      const length = buf.readUInt32BE(HEAD_BYTES + OFFSET_BYTES);
      if (length < 1 || length > CHUNK_BYTES) throw invalid('chunk size out of range');
      if (buf.length !== CHUNK_HEAD_BYTES + length) throw invalid('chunk length is not its bytes');
      if (offset + length > MAX_OFFSET + 1) throw invalid('chunk beyond the largest offset');
      return { kind, ...address, offset, bytes: buf.subarray(CHUNK_HEAD_BYTES) };
    }
    case 'want': {
      if (buf.length < HEAD_BYTES + 2) throw invalid('want too short');
      const count = buf.readUInt16BE(HEAD_BYTES);
      if (count > MAX_RANGES) throw invalid(`more than ${MAX_RANGES} ranges`);
      if (buf.length !== HEAD_BYTES + 2 + count * RANGE_BYTES) throw invalid('want length is not its ranges');
      const pairs: [number, number][] = [];
      for (let i = 0; i < count; i++) {
        const at = HEAD_BYTES + 2 + i * RANGE_BYTES;
        pairs.push([buf.readUIntBE(at, OFFSET_BYTES), buf.readUIntBE(at + OFFSET_BYTES, OFFSET_BYTES)]);
      }
      // Sorted, disjoint, not touching: what a RangeSet writes; anything else is not a receiver's.
      const set = RangeSet.parse(pairs, MAX_OFFSET);
      if (set === null || set.ranges.length !== count) throw invalid('ranges not sorted and apart');
      return { kind, ...address, have: set.ranges };
    }
    case 'ack':
      if (buf.length !== HEAD_BYTES) throw invalid('ack length');
      return { kind, ...address };
    case 'stop': {
      if (buf.length !== HEAD_BYTES + 1) throw invalid('stop length');
      const why = STOP_REASONS[(buf[HEAD_BYTES] as number) - 1];
      if (why === undefined) throw invalid('unknown stop reason');
      return { kind, ...address, why };
    }
  }
}

/**
 * Checks a frame against what the receiver knows (ADR 0121): addressed to `self`, from the node
 * that signed the message (`sender`), a file of `manifest`, and for a chunk within that file's
 * size (a want's ranges too). PapoError('invalid_frame') otherwise.
 */
export function checkAgainstManifest(
  frame: AttachFrame,
  self: string,
  sender: string,
  manifest: readonly ManifestEntry[],
): ManifestEntry {
  if (frame.to !== self) throw invalid('not addressed to this member');
  if (frame.kind === 'chunk' && frame.from !== sender) throw invalid('a chunk not from the message’s sender');
  const entry = manifest[frame.file];
  if (entry === undefined) throw invalid('file index beyond the manifest');
  if (frame.kind === 'chunk' && frame.offset + frame.bytes.length > entry.size)
    throw invalid('chunk beyond the file’s size');
  if (frame.kind === 'want' && frame.have.some(([, b]) => b > entry.size))
    throw invalid('range beyond the file’s size');
  return entry;
}

/**
 * Attachment frames bound once to a room and a signer (as FrameCodec is for frames): seals and signs
 * ours, opens and checks the signature of theirs against their `from`.
 */
export class AttachCodec {
  readonly nodeId: string;
  #frameKey: Uint8Array;
  #context: Buffer;
  #signer: Signer;

  constructor(frameKey: Uint8Array, topic: string, signer: Identity) {
    this.#frameKey = frameKey;
    this.#context = Buffer.from(`${SIGNATURE_CONTEXT}${topic}\n`, 'utf8');
    this.#signer = new Signer(signer);
    this.nodeId = signer.nodeId;
  }

  /** Signs and seals a frame of ours (`from` must be our node id). */
  seal(frame: AttachFrame): Uint8Array {
    if (frame.from !== this.nodeId) throw new TypeError('an attachment frame is signed by its own node');
    const plain = encodeAttachFrame(frame);
    const sig = this.#signer.sign(Buffer.concat([this.#context, plain]));
    const sealed = seal(this.#frameKey, Buffer.concat([plain, sig]), ATTACH_AAD);
    if (sealed.length > MAX_SEALED_FRAME_BYTES)
      throw new RangeError('sealed attachment frame larger than 64 KiB');
    return sealed;
  }

  /**
   * Opens a frame from the wire and checks its signature by its `from`: PapoError 'open_failed'
   * (not this room's, or not an attachment frame), 'invalid_frame', or 'bad_signature'.
   */
  open(sealed: Uint8Array): AttachFrame {
    if (!(sealed instanceof Uint8Array) || sealed.length > MAX_SEALED_FRAME_BYTES)
      throw invalid('not bytes of at most 64 KiB');
    const plain = open(this.#frameKey, sealed, ATTACH_AAD);
    if (plain.length < HEAD_BYTES + SIG_BYTES) throw invalid('too short');
    const body = plain.subarray(0, plain.length - SIG_BYTES);
    const frame = decodeAttachFrame(body);
    const signature = plain.subarray(plain.length - SIG_BYTES);
    if (!this.#signer.verify(frame.from, Buffer.concat([this.#context, body]), signature))
      throw new PapoError('bad_signature', 'the attachment frame is not signed by its sender');
    return frame;
  }
}
