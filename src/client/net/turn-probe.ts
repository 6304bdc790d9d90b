// What `papo doctor` asks STUN and TURN servers (ADR 0072): the address this machine is seen from
// (a STUN Binding to each destination from one UDP socket, so that a mapping that changes per
// destination shows), and one real TURN allocation per configured URL, over UDP, TCP or TLS, with
// the long-term credential (RFC 8489 §9.2) papo's ICE agent would use. Every allocation made here
// is given back before the probe returns (a Refresh with LIFETIME 0, RFC 8656 §7; over TCP and TLS
// the connection is closed as well, which ends it too). Nothing here is secret in what it returns:
// no username, credential or key leaves this module.
import { createSocket } from 'node:dgram';
import { lookup } from 'node:dns/promises';
import { isIP, type Socket, connect as tcpConnect } from 'node:net';
import { type TLSSocket, connect as tlsConnect } from 'node:tls';
import { bareHost } from '../hosts.js';
import { parseIceUrl } from './ice-config.js';
import {
  addressOf,
  isStun,
  longTermKey,
  STUN_ATTR,
  STUN_METHOD,
  stunAttr,
  stunAttribute,
  stunMessage,
} from './stun-message.js';
import { certificateProblemOf, PIN_MISMATCH, pinForHost, pinVerdict, tlsOptions } from './tls-pin.js';
import { giveBack } from './turn-release.js';

export { addressOf };

export type TurnTransport = 'udp' | 'tcp' | 'tls';

/** A STUN destination: where a Binding request goes (a stun: URL, or a TURN server over UDP). */
export interface StunDestination {
  /** What the person configured (a stun: or turn: URL). */
  url: string;
  host: string;
  port: number;
}

export interface BindingResult {
  url: string;
  /** "ip:port" the request went to (after DNS), when the name resolved. */
  destination?: string;
  /** "ip:port" this machine is seen from, when the server answered. */
  mapped?: string;
  ms?: number;
  /** Why there is no answer ("no answer within 3 s", "cannot resolve host"...). */
  error?: string;
}

export interface AllocationResult {
  url: string;
  transport: TurnTransport;
  /**
   * allocated: the server granted a relay (and it was given back, see `released`); refused: the
   * server answered with an error (see `code`); unreachable: no connection or no answer;
   * untrusted: the TLS certificate did not verify; unsupported: a URL papo cannot use.
   */
  outcome: 'allocated' | 'refused' | 'unreachable' | 'untrusted' | 'unsupported';
  /** "ip:port" of the relayed address granted. */
  relayed?: string;
  /** "ip:port" the TURN server saw this machine from. */
  mapped?: string;
  ms?: number;
  /** The STUN error code of a refusal (401, 403, 437, 486...). */
  code?: number;
  /** The server's reason phrase, or what went wrong (no secret in it). */
  detail?: string;
  /** For an allocation: whether the server confirmed it was given back. */
  released?: boolean;
}

/** The transport a TURN URL uses (turns: is TLS), or null for a URL that is not TURN. */
export function turnTransportOf(url: string): TurnTransport | null {
  const parsed = parseIceUrl(url);
  if (typeof parsed === 'string' || parsed.scheme === 'stun') return null;
  if (parsed.scheme === 'turns') return 'tls';
  return parsed.transport === 'tcp' ? 'tcp' : 'udp';
}

/** The mapped address of a Binding or Allocate success (exported for the fuzz target). */
export function mappedOf(message: Buffer): string | undefined {
  const tid = message.subarray(8, 20);
  const xor = stunAttribute(message, STUN_ATTR.mapped);
  if (xor) return addressOf(xor, true, tid);
  const plain = stunAttribute(message, STUN_ATTR.mappedPlain);
  return plain ? addressOf(plain, false, tid) : undefined;
}

/** The ERROR-CODE attribute: code and a short printable reason (exported for the fuzz target). */
export function errorOf(message: Buffer): { code: number; reason: string } | undefined {
  const value = stunAttribute(message, STUN_ATTR.errorCode);
  if (value === undefined || value.length < 4) return undefined;
  const code = ((value[2] ?? 0) & 7) * 100 + (value[3] ?? 0);
  // The reason phrase comes from the server: shown to a person, so kept short and printable.
  const reason = value
    .subarray(4)
    .toString('utf8')
    .replace(/[^\x20-\x7e]/g, '')
    .slice(0, 80);
  return { code, reason };
}

function withTimeout<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(fallback), ms);
    promise.then(
      (v) => {
        clearTimeout(timer);
        resolve(v);
      },
      () => {
        clearTimeout(timer);
        resolve(fallback);
      },
    );
  });
}

async function resolve4(host: string, timeoutMs: number): Promise<string | undefined> {
  const bare = bareHost(host);
  if (isIP(bare) === 4) return bare;
  if (isIP(bare) === 6) return undefined;
  return withTimeout(
    lookup(bare, { family: 4 }).then((r) => r.address),
    timeoutMs,
    undefined,
  );
}

/**
 * Sends a Binding request to every destination from one UDP socket, retransmitting until an
 * answer or `timeoutMs`. The same socket for all: a mapping that differs per destination is the
 * sign of a NAT that maps per destination ("symmetric"). IPv4 only.
 */
export async function stunMappings(
  destinations: readonly StunDestination[],
  timeoutMs = 3000,
): Promise<BindingResult[]> {
  if (destinations.length === 0) return [];
  const socket = createSocket('udp4');
  socket.on('error', () => {});
  await new Promise<void>((resolve) => socket.bind(0, () => resolve()));
  const started = Date.now();
  try {
    return await Promise.all(
      destinations.map(async (d): Promise<BindingResult> => {
        const ip = await resolve4(d.host, timeoutMs);
        if (ip === undefined) return { url: d.url, error: 'cannot resolve the host (IPv4)' };
        const destination = `${ip}:${d.port}`;
        const message = stunMessage(STUN_METHOD.binding, []);
        const tid = message.subarray(8, 20);
        const answer = await new Promise<Buffer | undefined>((resolve) => {
          const onMessage = (m: Buffer) => {
            if (isStun(m) && m.subarray(8, 20).equals(tid)) finish(m);
          };
          let wait = 250;
          let resend: NodeJS.Timeout;
          const send = () => {
            socket.send(message, d.port, ip, () => {});
            resend = setTimeout(send, wait);
            wait = Math.min(wait * 2, 1000);
          };
          const timer = setTimeout(() => finish(undefined), Math.max(0, timeoutMs - (Date.now() - started)));
          function finish(m: Buffer | undefined): void {
            clearTimeout(timer);
            clearTimeout(resend);
            socket.off('message', onMessage);
            resolve(m);
          }
          socket.on('message', onMessage);
          send();
        });
        const ms = Date.now() - started;
        if (answer === undefined)
          return { url: d.url, destination, error: `no answer within ${Math.round(timeoutMs / 1000)} s` };
        const mapped = answer.readUInt16BE(0) === 0x0101 ? mappedOf(answer) : undefined;
        if (mapped === undefined) return { url: d.url, destination, ms, error: 'answer without an address' };
        return { url: d.url, destination, mapped, ms };
      }),
    );
  } finally {
    socket.close();
  }
}

/** Whether the mapping depends on the destination, from the answers of stunMappings. */
export function mappingBehaviour(results: readonly BindingResult[]): {
  verdict: 'same' | 'varies' | 'unknown';
  destinations: number;
} {
  const answered = new Map<string, string>();
  for (const r of results) if (r.destination && r.mapped) answered.set(r.destination, r.mapped);
  if (answered.size < 2) return { verdict: 'unknown', destinations: answered.size };
  const mapped = new Set(answered.values());
  return { verdict: mapped.size === 1 ? 'same' : 'varies', destinations: answered.size };
}

/** One request/answer channel to a TURN server over UDP, TCP or TLS. */
interface Channel {
  ask(message: Buffer, timeoutMs: number): Promise<Buffer | undefined>;
  close(): void;
}

async function udpChannel(host: string, port: number): Promise<Channel> {
  const socket = createSocket(isIP(host) === 6 ? 'udp6' : 'udp4');
  socket.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.connect(port, host, () => {
      socket.off('error', reject);
      resolve();
    });
  });
  const waiters = new Map<string, (m: Buffer) => void>();
  socket.on('message', (m) => {
    if (isStun(m)) waiters.get(m.subarray(8, 20).toString('hex'))?.(m);
  });
  return {
    ask(message, timeoutMs) {
      const id = message.subarray(8, 20).toString('hex');
      return new Promise((resolve) => {
        let wait = 250;
        let resend: NodeJS.Timeout;
        const send = () => {
          socket.send(message, () => {});
          resend = setTimeout(send, wait);
          wait = Math.min(wait * 2, 1000);
        };
        const timer = setTimeout(() => finish(undefined), timeoutMs);
        const finish = (m: Buffer | undefined) => {
          clearTimeout(timer);
          clearTimeout(resend);
          waiters.delete(id);
          resolve(m);
        };
        waiters.set(id, finish);
        send();
      });
    },
    close: () => socket.close(),
  };
}

async function streamChannel(
  host: string,
  port: number,
  tls: boolean,
  timeoutMs: number,
  pin: string | undefined,
): Promise<Channel> {
  const bare = bareHost(host);
  const stream: Socket = tls
    ? tlsConnect(tlsOptions(bare, port, pin !== undefined))
    : tcpConnect({ host: bare, port });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      stream.destroy();
      reject(new Error(`no connection within ${Math.round(timeoutMs / 1000)} s`));
    }, timeoutMs);
    stream.once(tls ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      // With a pin, the key is checked before the first Allocate is written (tls-pin.ts).
      const refused =
        tls && pin !== undefined ? pinVerdict(stream as TLSSocket, `${bare}:${port}`, pin) : undefined;
      if (refused !== undefined) {
        stream.destroy();
        return reject(refused);
      }
      resolve();
    });
    stream.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
  stream.on('error', () => {});
  const waiters = new Map<string, (m: Buffer) => void>();
  let pending = Buffer.alloc(0);
  stream.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4) {
      // STUN messages are framed by their length; ChannelData (never asked for here) is skipped.
      const stun = ((pending[0] ?? 0) & 0xc0) === 0;
      const length = stun ? 20 + pending.readUInt16BE(2) : (4 + pending.readUInt16BE(2) + 3) & ~3;
      if (pending.length < length) break;
      const frame = pending.subarray(0, length);
      pending = pending.subarray(length);
      if (stun && isStun(frame)) waiters.get(frame.subarray(8, 20).toString('hex'))?.(frame);
    }
  });
  return {
    ask(message, askTimeout) {
      const id = message.subarray(8, 20).toString('hex');
      return new Promise((resolve) => {
        const timer = setTimeout(() => finish(undefined), askTimeout);
        const finish = (m: Buffer | undefined) => {
          clearTimeout(timer);
          waiters.delete(id);
          resolve(m);
        };
        waiters.set(id, finish);
        stream.write(message);
      });
    },
    close: () => stream.destroy(),
  };
}

/**
 * The pin the room's signal address gives for a TURN URL: over TLS (turns:) to the signal
 * server's host only, else none.
 */
export function turnPinFor(
  signal: { url: string; pin?: string | undefined },
  url: string,
): string | undefined {
  const parsed = parseIceUrl(url);
  if (typeof parsed === 'string' || parsed.scheme !== 'turns') return undefined;
  return pinForHost(signal, parsed.host);
}

/**
 * One allocation at the TURN server of `url` with the long-term credential, given back at once.
 * Bounded by `timeoutMs` for the allocation, plus about a second to give it back. `pin`: the pin of
 * the key the room's signal address gives for this host, for TURN over TLS (tls-pin.ts).
 */
export async function probeTurn(
  url: string,
  username: string | undefined,
  credential: string | undefined,
  timeoutMs = 5000,
  pin?: string,
): Promise<AllocationResult> {
  const transport = turnTransportOf(url) ?? 'udp';
  const parsed = parseIceUrl(url);
  if (typeof parsed === 'string' || parsed.scheme === 'stun')
    return {
      url,
      transport,
      outcome: 'unsupported',
      detail: typeof parsed === 'string' ? parsed : 'not TURN',
    };
  if (username === undefined || credential === undefined)
    return { url, transport, outcome: 'unsupported', detail: 'no username and credential for it' };
  const started = Date.now();
  const left = () => Math.max(1, timeoutMs - (Date.now() - started));
  let channel: Channel;
  try {
    channel =
      transport === 'udp'
        ? await udpChannel(parsed.host, parsed.port)
        : await streamChannel(parsed.host, parsed.port, transport === 'tls', timeoutMs, pin);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const detail = (e.code ? `${e.code}: ` : '') + (e.message ?? String(err));
    const untrusted =
      transport === 'tls' && (e.code === PIN_MISMATCH || certificateProblemOf(e) !== undefined);
    return { url, transport, outcome: untrusted ? 'untrusted' : 'unreachable', detail: detail.slice(0, 160) };
  }
  try {
    const wantUdp = stunAttr(STUN_ATTR.transport, Buffer.from([17, 0, 0, 0]));
    const first = await channel.ask(stunMessage(STUN_METHOD.allocate, [wantUdp]), left());
    if (first === undefined)
      return {
        url,
        transport,
        outcome: 'unreachable',
        detail: `no answer within ${Math.round(timeoutMs / 1000)} s`,
      };
    const realm = stunAttribute(first, STUN_ATTR.realm)?.toString('utf8');
    let nonce = stunAttribute(first, STUN_ATTR.nonce)?.toString('utf8');
    const firstError = errorOf(first);
    if (firstError?.code !== 401 || realm === undefined || nonce === undefined) {
      // A server that allocates without credentials is not what papo meets; report it as it is.
      return {
        url,
        transport,
        outcome: 'refused',
        code: firstError?.code ?? 0,
        detail: firstError?.reason ?? 'unexpected answer to an Allocate',
      };
    }
    const key = longTermKey(username, realm, credential);
    const signed = (n: string) =>
      stunMessage(
        STUN_METHOD.allocate,
        [
          wantUdp,
          stunAttr(STUN_ATTR.username, Buffer.from(username, 'utf8')),
          stunAttr(STUN_ATTR.realm, Buffer.from(realm, 'utf8')),
          stunAttr(STUN_ATTR.nonce, Buffer.from(n, 'utf8')),
        ],
        key,
      );
    let answer = await channel.ask(signed(nonce), left());
    if (answer !== undefined && errorOf(answer)?.code === 438) {
      nonce = stunAttribute(answer, STUN_ATTR.nonce)?.toString('utf8') ?? nonce;
      answer = await channel.ask(signed(nonce), left());
    }
    const ms = Date.now() - started;
    if (answer === undefined)
      return {
        url,
        transport,
        outcome: 'unreachable',
        detail: `no answer within ${Math.round(timeoutMs / 1000)} s`,
      };
    if (answer.readUInt16BE(0) !== 0x0103) {
      const e = errorOf(answer);
      return { url, transport, outcome: 'refused', code: e?.code ?? 0, detail: e?.reason ?? '', ms };
    }
    const tid = answer.subarray(8, 20);
    const relayedValue = stunAttribute(answer, STUN_ATTR.relayed);
    const relayed = relayedValue ? addressOf(relayedValue, true, tid) : undefined;
    const mapped = mappedOf(answer);
    const released = await giveBack((m) => channel.ask(m, 500), { username, realm, nonce, key });
    return {
      url,
      transport,
      outcome: 'allocated',
      ...(relayed ? { relayed } : {}),
      ...(mapped ? { mapped } : {}),
      ms,
      released,
    };
  } finally {
    channel.close();
  }
}
