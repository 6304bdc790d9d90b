// The frame codec on its own (ADR 0064): what it signs, what it refuses and with which error. The
// attacks in tests/attacks/signed-frames.test.ts play the same refusals over real links; these
// pin the bytes, so mutation testing of frame-codec.ts (ADR 0080) has fast tests to run.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ed25519 } from '@noble/curves/ed25519.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { isPapoError, type PapoErrorCode } from '../../src/client/errors.js';
import { FrameCodec, type SignedFrame, signerOf } from '../../src/client/wire/frame-codec.js';
import {
  encodeFrame,
  type Frame,
  MAX_SEALED_FRAME_BYTES,
  type MsgFrame,
  newMessageId,
} from '../../src/client/wire/frames.js';
import { generateIdentity } from '../../src/client/wire/identity.js';
import { deriveRoomKeys, FRAME_AAD, generateSecret, open, seal } from '../../src/client/wire/room-crypto.js';

const keys = deriveRoomKeys(generateSecret());
const ana = generateIdentity();
const bia = generateIdentity();
const anaCodec = new FrameCodec(keys.frameKey, keys.topic, ana);
const biaCodec = new FrameCodec(keys.frameKey, keys.topic, bia);

function msg(node = ana.nodeId, body = 'hello'): MsgFrame {
  return { t: 'msg', id: newMessageId(), from: 'ana', node, kind: 'agent', ts: 1_700_000_000_000, body };
}

function frames(node: string): Frame[] {
  const id = newMessageId();
  return [
    { t: 'hello', node, name: 'ana', about: 'tests', kind: 'agent', ephemeral: false, ts: 1_700_000_000_000 },
    msg(node),
    { t: 'ack', id, by: 'ana', node },
    { t: 'refused', id, by: 'ana', node, why: 'inbox_full' },
    { t: 'have', node, since: 5, ids: [id] },
  ];
}

function refused(sealed: Uint8Array, code: PapoErrorCode, message?: RegExp | string): void {
  assert.throws(
    () => biaCodec.open(sealed),
    (e) =>
      isPapoError(e, code) &&
      (message === undefined ||
        (typeof message === 'string' ? e.message === message : message.test(e.message))),
  );
}

/** Seals any text with the room's frame key, as a member that holds the key but not a signer's. */
function sealText(text: string): Uint8Array {
  return seal(keys.frameKey, new TextEncoder().encode(text), FRAME_AAD);
}

test('the signature is Ed25519 over "papo/v1 frame signature\\n" + topic + "\\n" + the JSON, as noble computes it', () => {
  for (const frame of frames(ana.nodeId)) {
    const signed = anaCodec.sign(frame);
    const bytes = new TextEncoder().encode(`papo/v1 frame signature\n${keys.topic}\n${encodeFrame(frame)}`);
    assert.equal(signed.sig, Buffer.from(ed25519.sign(bytes, ana.secretKey)).toString('hex'), frame.t);
    assert.ok(ed25519.verify(hexToBytes(signed.sig), bytes, ana.publicKey));
    // The sealed form is that frame's JSON, `sig` last.
    const sealed = anaCodec.seal(signed);
    assert.equal(new TextDecoder().decode(open(keys.frameKey, sealed, FRAME_AAD)), encodeFrame(signed));
    assert.match(encodeFrame(signed), /,"sig":"[0-9a-f]{128}"\}$/);
  }
});

test('every kind of frame signed and sealed by one member opens for another, as it was', () => {
  for (const frame of frames(ana.nodeId)) {
    const opened = biaCodec.open(anaCodec.signAndSeal(frame));
    assert.deepEqual(opened, anaCodec.sign(frame), frame.t);
    assert.equal(signerOf(opened), ana.nodeId);
  }
  assert.equal(anaCodec.nodeId, ana.nodeId);
});

test('signing again replaces an old signature instead of signing it', () => {
  const frame = msg();
  const once = anaCodec.sign(frame);
  const forged = { ...frame, sig: 'ab'.repeat(64) };
  assert.equal(anaCodec.sign(forged).sig, once.sig);
  assert.deepEqual(biaCodec.open(anaCodec.seal(anaCodec.sign(forged))), once);
});

test('a member signs only frames that name its own node', () => {
  for (const frame of frames(bia.nodeId)) {
    assert.throws(() => anaCodec.sign(frame), {
      name: 'TypeError',
      message: 'a frame is signed by its own node',
    });
  }
});

test('a frame signed by one key but naming another node is refused, naming the node', () => {
  const frame = msg(bia.nodeId);
  const forged: SignedFrame = { ...frame, sig: anaCodec.sign(msg()).sig };
  refused(anaCodec.seal(forged), 'bad_signature', `the frame is not signed by ${bia.nodeId.slice(0, 10)}`);
  // The right signature of other bytes: a forwarded frame altered on the way.
  const signed = anaCodec.sign(msg());
  refused(anaCodec.seal({ ...signed, body: 'changed' }), 'bad_signature', /not signed by/);
});

test('a signature is bound to its room: the same key pair in another room does not verify', () => {
  const other = new FrameCodec(keys.frameKey, deriveRoomKeys(generateSecret()).topic, ana);
  refused(other.signAndSeal(msg()), 'bad_signature', /not signed by/);
});

test('a frame without a signature, or with one not at the end, is refused as unsigned', () => {
  const frame = msg();
  refused(sealText(encodeFrame(frame)), 'bad_signature', 'the frame is not signed');
  const { sig, ...rest } = anaCodec.sign(frame);
  refused(sealText(JSON.stringify({ sig, ...rest })), 'bad_signature', 'the frame is not signed');
});

test('a frame naming a node whose key nobody holds is refused as a bad signature, not a crash', () => {
  // OpenSSL takes any 32 bytes as a public key; a signature by some other key never verifies.
  const node = `${'ff'.repeat(31)}7f`;
  const text = encodeFrame({ ...msg(node), sig: 'ab'.repeat(64) });
  refused(sealText(text), 'bad_signature', /not signed by ffffffffff/);
});

test('only a signature at the very end counts: one that ends a nested object is no signature', () => {
  const signed = anaCodec.sign(msg());
  // An unknown field (dropped by the decoder) whose object ends like a signed frame: `,"sig":"…"}`.
  const text = JSON.stringify({ ...signed, extra: { a: 1, sig: signed.sig } });
  assert.match(text, /,"sig":"[0-9a-f]{128}"\}\}$/);
  refused(sealText(text), 'bad_signature', 'the frame is not signed');
});

test('what does not open with the room key, is not UTF-8, or is not a frame is refused as such', () => {
  const outsider = new FrameCodec(deriveRoomKeys(generateSecret()).frameKey, keys.topic, ana);
  refused(outsider.signAndSeal(msg()), 'open_failed');
  refused(
    seal(keys.frameKey, new Uint8Array([0x7b, 0xff, 0x7d]), FRAME_AAD),
    'invalid_frame',
    'invalid frame: not UTF-8',
  );
  refused(sealText('{"t":"nope"}'), 'invalid_frame', /unknown type/);
  assert.throws(
    () => biaCodec.open('not bytes' as unknown as Uint8Array),
    (e) => isPapoError(e, 'invalid_frame') && e.message === 'invalid frame: not bytes of at most 64 KiB',
  );
});

test('a stored message carried by another member (missed) verifies against its sender, not the carrier', () => {
  const original = anaCodec.sign(msg());
  const carried = { ...original, t: 'missed' as const };
  // Bia carries it; the frame still names Ana's node and signature.
  const opened = biaCodec.open(biaCodec.seal(carried));
  assert.equal(opened.t, 'missed');
  assert.equal(opened.sig, original.sig);
  refused(biaCodec.seal({ ...carried, body: 'changed' }), 'bad_signature', /not signed by/);
  refused(biaCodec.seal({ ...carried, sig: biaCodec.sign(msg(bia.nodeId)).sig }), 'bad_signature');
});

/** A hello signed by Ana whose sealed form is exactly `size` bytes (its `about` pads it). */
function helloSealedTo(size: number): SignedFrame {
  const base: Frame = {
    t: 'hello',
    node: ana.nodeId,
    name: 'ana',
    about: 'x',
    kind: 'agent',
    ephemeral: false,
    ts: 1_700_000_000_000,
  };
  const overhead = anaCodec.seal(anaCodec.sign(base)).length - 1;
  return anaCodec.sign({ ...base, about: 'x'.repeat(size - overhead) });
}

test('64 KiB sealed is the limit, both ways: a frame of exactly that goes and opens, one byte more does not', () => {
  const atLimit = helloSealedTo(MAX_SEALED_FRAME_BYTES);
  const sealed = anaCodec.seal(atLimit);
  assert.equal(sealed.length, MAX_SEALED_FRAME_BYTES);
  assert.equal(biaCodec.open(sealed).t, 'hello');
  assert.throws(() => anaCodec.seal(helloSealedTo(MAX_SEALED_FRAME_BYTES + 1)), {
    name: 'RangeError',
    message: 'sealed frame larger than 64 KiB',
  });
  // One byte more, sealed by hand past the codec's own refusal: the receiver refuses it unopened.
  const over = sealText(encodeFrame(helloSealedTo(MAX_SEALED_FRAME_BYTES + 1)));
  assert.equal(over.length, MAX_SEALED_FRAME_BYTES + 1);
  refused(over, 'invalid_frame', 'invalid frame: not bytes of at most 64 KiB');
});
