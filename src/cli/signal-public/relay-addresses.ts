// Where coturn opens its relays, what it says their address is, and which of the host's own
// addresses relays may reach (ADR 0112, issue 40). Two members who may only relay (PAPO_ICE_POLICY
// =relay, a TCP-only network) link relay to relay: each sends to the other's relayed address, which
// is this host. coturn then checks that peer against the deny list (ADR 0076/0096), and when the
// peer is its own external-ip it first maps it to the private address it stands for. So:
//   - ADDR on an interface (a public VM, or a member's machine at its LAN or VPN address):
//     relays on ADDR alone (relay-ip). Without it coturn opens relays on every address of the host
//     and hands out ADDR for each (external-ip), so an allocation on the LAN address 10.1.0.2
//     mapped ADDR back to 10.1.0.2 and the deny list refused it (issue 40 item 2).
//   - ADDR an IP on no interface (1:1 NAT: a cloud VM has only its private address): relays on the
//     private address of the interface that routes out, external-ip=ADDR/PRIVATE, so that coturn
//     hands out ADDR and maps it back to PRIVATE (issue 40 item 1).
//   - ADDR a DNS name: the plan of the address it resolves to on this host (public-signal.ts),
//     so a name whose A record is the 1:1 NAT's public address is mapped as that address is.
// In each case only the host's own relay address (and ADDR) may be allowed as a peer, and only
// where the deny list names it: every other special-purpose range stays refused.

import { createSocket } from 'node:dgram';
import { isIP } from 'node:net';
import { type NetworkInterfaceInfo, networkInterfaces } from 'node:os';
import { DENIED_PEERS } from './coturn.js';
import { ipBytes } from './self-signed.js';

export interface RelayPlan {
  /**
   * 'local': ADDR is on an interface; 'mapped': 1:1 NAT; 'unknown': a DNS name, or an IP on no
   * interface with no address to map it to, left to coturn as before.
   */
  kind: 'local' | 'mapped' | 'unknown';
  /** coturn's relay-ip: the one address relays are opened on. */
  relayIp: string | undefined;
  /** coturn's external-ip: `ADDR/PRIVATE` behind 1:1 NAT. */
  externalIp: string | undefined;
  /** The host's own addresses relays may reach although the deny list has them. */
  allowedSelf: string[];
}

/** Whether `address` is in one of coturn's `first-last` ranges (same family only). */
export function inRange(address: string, range: string): boolean {
  const [first = '', last = first] = range.split('-');
  const a = ipBytes(address);
  const lo = ipBytes(first);
  const hi = ipBytes(last);
  return a.length === lo.length && Buffer.compare(lo, a) <= 0 && Buffer.compare(a, hi) <= 0;
}

/**
 * `address` itself, when the deny list holds it (a LAN, a VPN such as Tailscale's 100.64/10, a
 * private address behind 1:1 NAT, a lab): two members relayed by this coturn reach each other
 * through relay addresses of this host, which the deny list would refuse (ADR 0088, ADR 0112: the
 * cost is that relays may reach this host's own UDP services at that address, for token holders).
 */
export function selfAllowed(address: string): string[] {
  if (isIP(address) === 0) return [];
  return DENIED_PEERS.some((r) => inRange(address, r)) ? [address] : [];
}

function sameIp(a: string, b: string): boolean {
  return isIP(a) !== 0 && isIP(a) === isIP(b) && ipBytes(a).equals(ipBytes(b));
}

/** The host's own addresses, from its interfaces (os.networkInterfaces()). */
export function localAddresses(
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]> = networkInterfaces(),
): NetworkInterfaceInfo[] {
  return Object.values(interfaces).flatMap((list) => list ?? []);
}

/**
 * The source address the host would use towards `address`: a connected UDP socket sends nothing,
 * but the kernel picks its route and source (the interface that routes out). Undefined without a route.
 */
export function routeSource(address: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = createSocket(isIP(address) === 6 ? 'udp6' : 'udp4');
    const done = (value: string | undefined) => {
      socket.close();
      resolve(value);
    };
    socket.once('error', () => done(undefined));
    socket.connect(9, address, () => {
      try {
        done(socket.address().address);
      } catch {
        done(undefined);
      }
    });
  });
}

/**
 * The plan for ADDR, given the host's addresses and the source address towards ADDR (routeSource).
 * Behind 1:1 NAT without a route, the first address of ADDR's family that is not loopback stands
 * for the interface that routes out; with none either, coturn is left to choose (kind 'unknown').
 */
export function relayPlan(
  address: string,
  local: readonly NetworkInterfaceInfo[],
  routeOut: string | undefined,
): RelayPlan {
  const family = isIP(address);
  if (family === 0) return { kind: 'unknown', relayIp: undefined, externalIp: undefined, allowedSelf: [] };
  if (local.some((i) => sameIp(i.address, address))) {
    return { kind: 'local', relayIp: address, externalIp: undefined, allowedSelf: selfAllowed(address) };
  }
  const ofFamily = local.filter((i) => !i.internal && isIP(i.address) === family);
  const own = (a: string | undefined) => a !== undefined && ofFamily.some((i) => sameIp(i.address, a));
  const privateIp = own(routeOut) ? routeOut : ofFamily.find((i) => !i.address.startsWith('fe80'))?.address;
  if (privateIp === undefined) {
    return {
      kind: 'unknown',
      relayIp: undefined,
      externalIp: address,
      allowedSelf: selfAllowed(address),
    };
  }
  return {
    kind: 'mapped',
    relayIp: privateIp,
    externalIp: `${address}/${privateIp}`,
    allowedSelf: [...new Set([...selfAllowed(address), ...selfAllowed(privateIp)])],
  };
}
