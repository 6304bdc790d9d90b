// A second STUN destination for `papo signal --public` (ADR 0088): STUN Binding (RFC 8489 §6.3.1)
// answered on UDP at the signal port's number. A machine that sends a Binding from one socket to
// coturn's port and to this one sees whether its NAT maps it to one public port for both
// (endpoint-independent) or one per destination (symmetric: a direct path is unlikely, only TURN
// links it). coturn cannot be that second destination itself on a host with one address: its
// alt-listening-port opens only with RFC 5780 and two addresses (coturn 4.6.1 says so at start).
// Only a well-formed Binding request is answered, with XOR-MAPPED-ADDRESS alone: 32 bytes for a
// request of at least 20 (IPv4), so it amplifies little, and a token bucket bounds the answers.
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { isIP } from 'node:net';
import {
  isStun,
  STUN_ATTR,
  STUN_MAGIC,
  STUN_METHOD,
  stunAttr,
  stunMessage,
} from '../../client/net/stun-message.js';
import { ipBytes } from './self-signed.js';

const BINDING_SUCCESS = 0x0101;
/** Answers per second at most, all sources together (a Binding is a few per member per link). */
const ANSWERS_PER_SECOND = 200;

/** XOR-MAPPED-ADDRESS (RFC 8489 §14.2) of `address:port` for transaction `tid`. */
export function xorMapped(address: string, port: number, tid: Buffer): Buffer {
  const ip = ipBytes(address);
  const mask = Buffer.alloc(16);
  mask.writeUInt32BE(STUN_MAGIC, 0);
  tid.copy(mask, 4);
  const value = Buffer.alloc(4 + ip.length);
  value[1] = ip.length === 4 ? 0x01 : 0x02;
  value.writeUInt16BE(port ^ (STUN_MAGIC >>> 16), 2);
  for (let i = 0; i < ip.length; i++) value[4 + i] = (ip[i] ?? 0) ^ (mask[i] ?? 0);
  return stunAttr(STUN_ATTR.mapped, value);
}

export interface StunResponder {
  port: number;
  close(): Promise<void>;
}

/** Listens on UDP `host:port`; rejects with the bind error (EADDRINUSE...). */
export async function startStunResponder(host: string, port: number): Promise<StunResponder> {
  const socket: Socket = createSocket({ type: isIP(host) === 6 ? 'udp6' : 'udp4' });
  let tokens = ANSWERS_PER_SECOND;
  let refilled = Date.now();
  socket.on('message', (msg: Buffer, from: RemoteInfo) => {
    if (!isStun(msg) || msg.readUInt16BE(0) !== STUN_METHOD.binding) return;
    if (msg.readUInt16BE(2) + 20 !== msg.length) return;
    const now = Date.now();
    tokens = Math.min(ANSWERS_PER_SECOND, tokens + ((now - refilled) / 1000) * ANSWERS_PER_SECOND);
    refilled = now;
    if (tokens < 1) return;
    tokens -= 1;
    // An IPv4 client on a dual-stack socket shows as ::ffff:a.b.c.d: answer its IPv4 address.
    const address = from.address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
    const tid = Buffer.from(msg.subarray(8, 20));
    socket.send(
      stunMessage(BINDING_SUCCESS, [xorMapped(address, from.port, tid)], undefined, tid),
      from.port,
      from.address,
    );
  });
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  return {
    port: socket.address().port,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
