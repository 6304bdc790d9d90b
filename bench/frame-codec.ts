// Benchmark (not a test) of what signed frames cost (ADR 0064): per frame, sign + seal at the
// sender and open + verify at the receiver, for a `msg` of ~210 bytes of body and for an `ack`,
// beside sealing and opening alone (no signature), and beside signing with @noble/curves.
// Usage: npm run build && node dist/bench/frame-codec.js [frames=5000]
import { cpus } from 'node:os';
import { ed25519 } from '@noble/curves/ed25519.js';
import { FrameCodec } from '../src/client/wire/frame-codec.js';
import { encodeFrame, type Frame, openFrame, sealFrame } from '../src/client/wire/frames.js';
import { generateIdentity } from '../src/client/wire/identity.js';
import { deriveRoomKeys, generateSecret } from '../src/client/wire/room-crypto.js';

const N = Number(process.argv[2] ?? 5000);
const keys = deriveRoomKeys(generateSecret());
const ana = generateIdentity();
const bia = generateIdentity();
const send = new FrameCodec(keys.frameKey, keys.topic, ana);
const receive = new FrameCodec(keys.frameKey, keys.topic, bia);
const body = 'Could you send the webhook payload for payment.settled with the retry headers? '
  .repeat(3)
  .slice(0, 210);
const msg: Frame = {
  t: 'msg',
  id: '81d4e0aa6c',
  from: 'ana',
  node: ana.nodeId,
  kind: 'agent',
  ts: Date.now(),
  body,
};
const ack: Frame = { t: 'ack', id: '81d4e0aa6c', by: 'ana', node: ana.nodeId };

function perOp(label: string, fn: () => void): void {
  for (let i = 0; i < 200; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < N; i++) {
    const t0 = process.hrtime.bigint();
    fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  const p = (q: number) =>
    (times[Math.min(times.length - 1, Math.floor(q * times.length))] as number).toFixed(3);
  console.log(`${label.padEnd(40)} p50 ${p(0.5)} ms   p99 ${p(0.99)} ms`);
}

console.log(
  `${new Date().toISOString()}  ${cpus()[0]?.model} x${cpus().length}  node ${process.version}  frames=${N}`,
);
for (const [name, frame] of [
  ['msg', msg],
  ['ack', ack],
] as const) {
  const signed = send.signAndSeal(frame);
  const plain = sealFrame(keys.frameKey, frame);
  perOp(`${name}: seal (unsigned)`, () => sealFrame(keys.frameKey, frame));
  perOp(`${name}: open (unsigned)`, () => openFrame(keys.frameKey, plain));
  perOp(`${name}: sign + seal`, () => send.signAndSeal(frame));
  perOp(`${name}: open + verify`, () => receive.open(signed));
}
const bytes = new TextEncoder().encode(encodeFrame(msg));
const sig = ed25519.sign(bytes, ana.secretKey);
perOp('msg: @noble/curves sign', () => ed25519.sign(bytes, ana.secretKey));
perOp('msg: @noble/curves verify', () => ed25519.verify(sig, bytes, ana.publicKey));
