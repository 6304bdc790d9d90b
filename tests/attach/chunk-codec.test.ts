// The binary attachment frames (src/client/attach/chunk-codec.ts, ADR 0121): round trips, their
// size against the room's 64 KiB, every field bounded on decode, the checks against the manifest
// (chunks oversized, beyond the file, for another member or from another than the sender), and
// the seal and signature (another room, a frame not an attachment's, a forged signer).
import assert from 'node:assert/strict';
import { createPrivateKey, randomBytes, sign } from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  ATTACH_AAD,
  AttachCodec,
  type AttachFrame,
  checkAgainstManifest,
  decodeAttachFrame,
  encodeAttachFrame,
} from '../../src/client/attach/chunk-codec.js';
import { CHUNK_BYTES, MAX_RANGES } from '../../src/client/attach/constants.js';
import type { ManifestEntry } from '../../src/client/attach/manifest.js';
import { isPapoError } from '../../src/client/errors.js';
import { FrameCodec } from '../../src/client/wire/frame-codec.js';
import { ED25519_PKCS8_PREFIX, generateIdentity } from '../../src/client/wire/identity.js';
import { MAX_SEALED_FRAME_BYTES } from '../../src/client/wire/limits.js';
import { FRAME_AAD, seal } from '../../src/client/wire/room-crypto.js';

const alice = generateIdentity();
const bob = generateIdentity();
const eve = generateIdentity();
const KEY = randomBytes(32);
const TOPIC = 'ab'.repeat(32);
const ID = '81d4e0aa6c';
const address = { from: alice.nodeId, to: bob.nodeId, id: ID, file: 0 };
const MANIFEST: ManifestEntry[] = [
  { name: 'spec.json', size: 100_000, sha256: 'cd'.repeat(32), type: 'application/json' },
];

function invalid(run: () => unknown, what: RegExp): void {
  assert.throws(run, (err: unknown) => isPapoError(err, 'invalid_frame') && what.test(err.message));
}

test('each kind round-trips through its plaintext', () => {
  const frames: AttachFrame[] = [
    { kind: 'chunk', ...address, offset: 64_512, bytes: randomBytes(1000) },
    {
      kind: 'want',
      ...address,
      have: [
        [0, 10],
        [20, 64_512],
      ],
    },
    { kind: 'want', ...address, file: 15, have: [] },
    { kind: 'ack', ...address },
    { kind: 'stop', ...address, why: 'rejected' },
    { kind: 'stop', ...address, why: 'corrupt' },
  ];
  for (const frame of frames) {
    const back = decodeAttachFrame(encodeAttachFrame(frame));
    assert.deepEqual(
      { ...back, ...('bytes' in back ? { bytes: Buffer.from(back.bytes) } : {}) },
      { ...frame, ...('bytes' in frame ? { bytes: Buffer.from(frame.bytes) } : {}) },
    );
  }
});

test('a full chunk, sealed and signed, fits the room’s 64 KiB with room to spare', () => {
  const codec = new AttachCodec(KEY, TOPIC, alice);
  const sealed = codec.seal({ kind: 'chunk', ...address, offset: 0, bytes: randomBytes(CHUNK_BYTES) });
  assert.ok(sealed.length <= MAX_SEALED_FRAME_BYTES, `${sealed.length} bytes`);
  assert.equal(sealed.length, 64_697);
  const want = codec.seal({
    kind: 'want',
    ...address,
    have: Array.from({ length: MAX_RANGES }, (_, i) => [i * 2, i * 2 + 1] as const),
  });
  assert.ok(want.length <= MAX_SEALED_FRAME_BYTES);
});

test('the receiver opens what the sender sealed, and checks who signed it', () => {
  const mine = new AttachCodec(KEY, TOPIC, alice);
  const theirs = new AttachCodec(KEY, TOPIC, bob);
  const bytes = randomBytes(5000);
  const frame = theirs.open(mine.seal({ kind: 'chunk', ...address, offset: 100, bytes }));
  assert.equal(frame.kind, 'chunk');
  assert.ok(frame.kind === 'chunk' && Buffer.from(frame.bytes).equals(bytes));
  // A member cannot sign as another: eve's codec refuses to seal in alice's name…
  const evil = new AttachCodec(KEY, TOPIC, eve);
  assert.throws(() => evil.seal({ kind: 'chunk', ...address, offset: 0, bytes }), TypeError);
  // …and a frame eve signs but says is alice's fails the signature.
  const forged = Buffer.concat([
    encodeAttachFrame({ kind: 'chunk', ...address, offset: 0, bytes }),
    randomBytes(64),
  ]);
  assert.throws(
    () => theirs.open(seal(KEY, forged, ATTACH_AAD)),
    (err: unknown) => isPapoError(err, 'bad_signature'),
  );
});

test('a frame of another room, another topic, or a room frame on the attachment channel does not pass', () => {
  const sealed = new AttachCodec(KEY, TOPIC, alice).seal({ kind: 'ack', ...address });
  const otherRoom = new AttachCodec(randomBytes(32), TOPIC, bob);
  assert.throws(
    () => otherRoom.open(sealed),
    (err: unknown) => isPapoError(err, 'open_failed'),
  );
  const otherTopic = new AttachCodec(KEY, 'cd'.repeat(32), bob);
  assert.throws(
    () => otherTopic.open(sealed),
    (err: unknown) => isPapoError(err, 'bad_signature'),
  );
  // The aads keep the two kinds apart: an attachment frame never opens as a room frame, nor back.
  const room = new FrameCodec(KEY, TOPIC, bob);
  assert.throws(
    () => room.open(sealed),
    (err: unknown) => isPapoError(err, 'open_failed'),
  );
  const hello = new FrameCodec(KEY, TOPIC, alice).signAndSeal({
    t: 'hello',
    node: alice.nodeId,
    name: 'ana',
    kind: 'agent',
    ephemeral: false,
    ts: Date.now(),
  });
  assert.throws(
    () => new AttachCodec(KEY, TOPIC, bob).open(hello),
    (err: unknown) => isPapoError(err, 'open_failed'),
  );
  assert.throws(
    () => new AttachCodec(KEY, TOPIC, bob).open(seal(KEY, Buffer.from('{"t":"ack"}'), FRAME_AAD)),
    (err: unknown) => isPapoError(err, 'open_failed'),
  );
  assert.throws(
    () => new AttachCodec(KEY, TOPIC, bob).open(new Uint8Array(MAX_SEALED_FRAME_BYTES + 1)),
    (err: unknown) => isPapoError(err, 'invalid_frame'),
  );
});

test('decoding refuses every malformed plaintext', () => {
  const chunk = encodeAttachFrame({ kind: 'chunk', ...address, offset: 0, bytes: Buffer.alloc(10) });
  invalid(() => decodeAttachFrame(new Uint8Array(10)), /too short/);
  invalid(() => decodeAttachFrame(Buffer.concat([Buffer.from([9]), chunk.subarray(1)])), /unknown kind/);
  // Length field and bytes that disagree, both ways.
  invalid(() => decodeAttachFrame(chunk.subarray(0, chunk.length - 1)), /length/);
  invalid(() => decodeAttachFrame(Buffer.concat([chunk, Buffer.alloc(1)])), /length/);
  // A zero-length chunk, and one larger than a chunk.
  const empty = Buffer.from(chunk.subarray(0, 81));
  empty.writeUInt32BE(0, 77);
  invalid(() => decodeAttachFrame(empty), /chunk size/);
  const huge = Buffer.concat([chunk.subarray(0, 81), Buffer.alloc(CHUNK_BYTES + 1)]);
  huge.writeUInt32BE(CHUNK_BYTES + 1, 77);
  invalid(() => decodeAttachFrame(huge), /chunk size/);
  // A file index past what a message carries.
  const index = Buffer.from(chunk);
  index[70] = 16;
  invalid(() => decodeAttachFrame(index), /file index/);
  // Addressed to its own sender.
  const self = Buffer.from(chunk);
  self.set(self.subarray(1, 33), 33);
  invalid(() => decodeAttachFrame(self), /its sender/);
  // An offset whose end passes 2^48.
  const far = Buffer.from(chunk);
  far.writeUIntBE(2 ** 48 - 5, 71, 6);
  invalid(() => decodeAttachFrame(far), /largest offset/);
  // Wants: too many ranges, ranges out of order, touching, or a count that lies.
  const want = (pairs: [number, number][], count = pairs.length) => {
    const head = encodeAttachFrame({ kind: 'ack', ...address });
    const body = Buffer.alloc(2 + pairs.length * 12);
    body.writeUInt16BE(count, 0);
    pairs.forEach(([a, b], i) => {
      body.writeUIntBE(a, 2 + i * 12, 6);
      body.writeUIntBE(b, 8 + i * 12, 6);
    });
    const out = Buffer.concat([head, body]);
    out[0] = 2;
    return out;
  };
  assert.equal(decodeAttachFrame(want([[0, 5]])).kind, 'want');
  invalid(() => decodeAttachFrame(want([], MAX_RANGES + 1)), /ranges/);
  invalid(() => decodeAttachFrame(want([[0, 5]], 2)), /want length/);
  invalid(
    () =>
      decodeAttachFrame(
        want([
          [5, 9],
          [0, 3],
        ]),
      ),
    /sorted/,
  );
  invalid(
    () =>
      decodeAttachFrame(
        want([
          [0, 5],
          [5, 9],
        ]),
      ),
    /sorted/,
  );
  invalid(() => decodeAttachFrame(want([[5, 5]])), /sorted/);
  const stop = encodeAttachFrame({ kind: 'stop', ...address, why: 'too_large' });
  stop[71] = 9;
  invalid(() => decodeAttachFrame(stop), /stop reason/);
});

test('a chunk is checked against the manifest: size, index, addressee and sender', () => {
  const chunk = (over: Partial<AttachFrame & { offset: number; bytes: Uint8Array }>) =>
    ({ kind: 'chunk', ...address, offset: 0, bytes: Buffer.alloc(1000), ...over }) as AttachFrame;
  assert.equal(checkAgainstManifest(chunk({}), bob.nodeId, alice.nodeId, MANIFEST), MANIFEST[0]);
  assert.ok(checkAgainstManifest(chunk({ offset: 99_000 }), bob.nodeId, alice.nodeId, MANIFEST));
  // Beyond the size the manifest gave, even by a byte.
  invalid(
    () => checkAgainstManifest(chunk({ offset: 99_001 }), bob.nodeId, alice.nodeId, MANIFEST),
    /beyond the file/,
  );
  invalid(
    () => checkAgainstManifest(chunk({ offset: 200_000 }), bob.nodeId, alice.nodeId, MANIFEST),
    /beyond the file/,
  );
  // A file the manifest does not list.
  invalid(
    () => checkAgainstManifest(chunk({ file: 1 }), bob.nodeId, alice.nodeId, MANIFEST),
    /beyond the manifest/,
  );
  // For another member, or from a member that did not sign the message.
  invalid(
    () => checkAgainstManifest(chunk({ to: eve.nodeId }), bob.nodeId, alice.nodeId, MANIFEST),
    /not addressed/,
  );
  invalid(
    () => checkAgainstManifest(chunk({ from: eve.nodeId }), bob.nodeId, alice.nodeId, MANIFEST),
    /sender/,
  );
  invalid(
    () =>
      checkAgainstManifest(
        { kind: 'want', from: bob.nodeId, to: alice.nodeId, id: ID, file: 0, have: [[0, 100_001]] },
        alice.nodeId,
        alice.nodeId,
        MANIFEST,
      ),
    /range beyond/,
  );
});

test('encoding refuses what cannot be sent', () => {
  assert.throws(
    () => encodeAttachFrame({ kind: 'chunk', ...address, offset: 0, bytes: Buffer.alloc(CHUNK_BYTES + 1) }),
    RangeError,
  );
  assert.throws(
    () => encodeAttachFrame({ kind: 'chunk', ...address, offset: 0, bytes: Buffer.alloc(0) }),
    RangeError,
  );
  assert.throws(
    () => encodeAttachFrame({ kind: 'chunk', ...address, offset: -1, bytes: Buffer.alloc(1) }),
    RangeError,
  );
  assert.throws(() => encodeAttachFrame({ kind: 'ack', ...address, file: 16 }), RangeError);
  assert.throws(() => encodeAttachFrame({ kind: 'ack', ...address, id: 'nope' }), RangeError);
  assert.throws(() => encodeAttachFrame({ kind: 'ack', ...address, to: 'x' }), RangeError);
  assert.throws(() => encodeAttachFrame({ kind: 'want', ...address, have: [[5, 1]] }), RangeError);
});

test('decoding any bytes gives a frame or invalid_frame, nothing else (property)', () => {
  const valid = encodeAttachFrame({ kind: 'chunk', ...address, offset: 7, bytes: randomBytes(64) });
  fc.assert(
    fc.property(
      fc.oneof(
        fc.uint8Array({ maxLength: 300 }),
        fc.tuple(fc.nat(valid.length - 1), fc.integer({ min: 0, max: 255 })).map(([at, v]) => {
          const b = Buffer.from(valid);
          b[at] = v;
          return b;
        }),
      ),
      (bytes) => {
        try {
          const frame = decodeAttachFrame(bytes);
          // What decodes encodes back to the same bytes.
          return Buffer.from(encodeAttachFrame(frame)).equals(Buffer.from(bytes));
        } catch (err) {
          return isPapoError(err, 'invalid_frame');
        }
      },
    ),
    { numRuns: 3000 },
  );
});

test('the layout is ADR 0121’s, byte for byte, and so are the aad and the signed context (cross-check)', () => {
  const bytes = Buffer.from('hello');
  const plain = Buffer.concat([
    Buffer.from([1]),
    Buffer.from(alice.nodeId, 'hex'),
    Buffer.from(bob.nodeId, 'hex'),
    Buffer.from(ID, 'hex'),
    Buffer.from([2]),
    Buffer.from([0, 0, 0, 1, 0, 0]), // offset 65,536
    Buffer.from([0, 0, 0, 5]),
    bytes,
  ]);
  assert.ok(encodeAttachFrame({ kind: 'chunk', ...address, file: 2, offset: 65_536, bytes }).equals(plain));
  // Sealed and signed by hand, as the ADR writes it: the codec opens it.
  const key = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, alice.secretKey]),
    format: 'der',
    type: 'pkcs8',
  });
  const sig = sign(null, Buffer.concat([Buffer.from(`papo/v1 attach signature\n${TOPIC}\n`), plain]), key);
  const sealed = seal(KEY, Buffer.concat([plain, sig]), Buffer.from('papo/v1/attach'));
  const frame = new AttachCodec(KEY, TOPIC, bob).open(sealed);
  assert.ok(frame.kind === 'chunk' && frame.offset === 65_536 && frame.file === 2);
  assert.ok(frame.kind === 'chunk' && Buffer.from(frame.bytes).equals(bytes));
  // The other kinds' bytes: want 2, ack 3, stop 4 with its reason 1 to 4.
  const head = (kind: number) => Buffer.concat([Buffer.from([kind]), plain.subarray(1, 71)]);
  assert.deepEqual(decodeAttachFrame(Buffer.concat([head(2), Buffer.from([0, 0])])), {
    kind: 'want',
    ...address,
    file: 2,
    have: [],
  });
  assert.equal(decodeAttachFrame(head(3)).kind, 'ack');
  const reasons = [1, 2, 3, 4].map((r) => {
    const f = decodeAttachFrame(Buffer.concat([head(4), Buffer.from([r])]));
    return f.kind === 'stop' ? f.why : null;
  });
  assert.deepEqual(reasons, ['too_large', 'member_full', 'rejected', 'corrupt']);
  invalid(() => decodeAttachFrame(Buffer.concat([head(4), Buffer.from([0])])), /stop reason/);
  invalid(() => decodeAttachFrame(Buffer.concat([head(3), Buffer.from([0])])), /ack length/);
  invalid(() => decodeAttachFrame(head(4)), /stop length/);
  invalid(() => decodeAttachFrame(Buffer.concat([head(2), Buffer.from([0])])), /want too short/);
  invalid(() => decodeAttachFrame(Buffer.concat([head(1), Buffer.alloc(9)])), /chunk too short/);
});

test('the edges of a chunk and a want: one byte, a full chunk, the largest offset, 256 ranges', () => {
  for (const bytes of [Buffer.alloc(1), Buffer.alloc(CHUNK_BYTES)]) {
    const back = decodeAttachFrame(encodeAttachFrame({ kind: 'chunk', ...address, offset: 0, bytes }));
    assert.ok(back.kind === 'chunk' && back.bytes.length === bytes.length);
  }
  const last = { kind: 'chunk' as const, ...address, offset: 2 ** 48 - 10, bytes: Buffer.alloc(10) };
  assert.equal(decodeAttachFrame(encodeAttachFrame(last)).kind, 'chunk');
  assert.throws(() => encodeAttachFrame({ ...last, bytes: Buffer.alloc(11) }), RangeError);
  const have = Array.from({ length: MAX_RANGES }, (_, i) => [i * 2, i * 2 + 1] as const);
  const back = decodeAttachFrame(encodeAttachFrame({ kind: 'want', ...address, have }));
  assert.ok(back.kind === 'want' && back.have.length === MAX_RANGES);
  for (const file of [-1, 1.5])
    assert.throws(() => encodeAttachFrame({ kind: 'ack', ...address, file }), RangeError);
  for (const offset of [-1, 1.5, Number.NaN])
    assert.throws(
      () => encodeAttachFrame({ kind: 'chunk', ...address, offset, bytes: Buffer.alloc(1) }),
      RangeError,
    );
  // A want whose ranges reach the size exactly is the receiver's; one past it in any range is not.
  const want = (have: [number, number][]) =>
    ({ kind: 'want', from: bob.nodeId, to: alice.nodeId, id: ID, file: 0, have }) as AttachFrame;
  assert.ok(checkAgainstManifest(want([[0, 100_000]]), alice.nodeId, alice.nodeId, MANIFEST));
  invalid(
    () =>
      checkAgainstManifest(
        want([
          [0, 10],
          [20, 100_001],
        ]),
        alice.nodeId,
        alice.nodeId,
        MANIFEST,
      ),
    /range beyond/,
  );
});

test('a frame that is not bytes, or passes 64 KiB, or is too short to be signed, is refused before its seal is opened', () => {
  const codec = new AttachCodec(KEY, TOPIC, bob);
  invalid(() => codec.open('x' as unknown as Uint8Array), /not bytes/);
  invalid(() => codec.open(new Uint8Array(MAX_SEALED_FRAME_BYTES + 1)), /not bytes/);
  assert.throws(
    () => codec.open(new Uint8Array(MAX_SEALED_FRAME_BYTES)),
    (err: unknown) => isPapoError(err, 'open_failed'),
  );
  invalid(() => codec.open(seal(KEY, Buffer.alloc(100), ATTACH_AAD)), /too short/);
});

test('a frame whose sender is not a key at all fails its signature', () => {
  // A key no member holds (0xff…): whatever the signature, it does not verify.
  const from = 'ff'.repeat(32);
  const plain = encodeAttachFrame({ kind: 'ack', ...address, from });
  assert.throws(
    () =>
      new AttachCodec(KEY, TOPIC, bob).open(seal(KEY, Buffer.concat([plain, randomBytes(64)]), ATTACH_AAD)),
    (err: unknown) => isPapoError(err, 'bad_signature'),
  );
});
