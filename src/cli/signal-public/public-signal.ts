// `papo signal --public ADDR` (ADR 0088): the operator's whole set-up in one process — the state
// folder (key, token, TURN secret), TLS with a given certificate or a self-signed one made with the
// kept key, the signal server requiring the token, coturn supervised with the bundle's hardening
// and TURN REST credentials handed out for it, a second STUN destination, and the address members
// need: `wss://ADDR:PORT/#pin=<certificatePin>&token=<token>` (src/signal-protocol.ts).

import { lookup } from 'node:dns/promises';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { messageOf } from '../../client/errors.js';
import { bareHost } from '../../client/hosts.js';
import type { LogTarget } from '../../client/log.js';
import {
  configFromEnv,
  DEFAULT_METRICS,
  DEFAULT_PORT,
  type SignalConfig,
  type TurnConfig,
  tlsFiles,
} from '../../signal-server/config.js';
import { type SignalServerHandle, startSignalServer } from '../../signal-server/server.js';
import { CoturnSupervisor, findSetpriv, findTurnserver, RELAY_PORTS } from './coturn.js';
import { localAddresses, type RelayPlan, relayPlan, routeSource } from './relay-addresses.js';
import { ensureCertificate, openPublicState, pinOfCertificate } from './state.js';
import { type StunResponder, startStunResponder } from './stun-responder.js';

export { inRange, selfAllowed } from './relay-addresses.js';

export const DEFAULT_TURN_PORT = 3478;
export const DEFAULT_TURN_TLS_PORT = 5349;
/** How often a self-signed certificate is looked at for renewal (state.ts renews near its end). */
const RENEW_CHECK_MS = 12 * 3_600_000;

export interface PublicSignalOptions {
  /** What members reach: a DNS name or an IP address. */
  address: string;
  host: string | undefined;
  port: number | undefined;
  stateDir: string;
  tls: { certFile: string; keyFile: string } | undefined;
  turnPort: number;
  turnTlsPort: number;
  env: NodeJS.ProcessEnv;
  log: LogTarget;
  /** The lines that say members behind symmetric NATs will not link (i18n; also in /healthz). */
  noTurnWarning: readonly string[];
}

export type TurnSource = 'coturn' | 'external' | 'none';

/** A port the operator opens to this host (issue 40: printed, and in README's "Two machines"). */
export interface OpenPort {
  /** A number, or a first-last range. */
  port: string;
  protocol: 'tcp' | 'udp';
  use: 'signal' | 'stun' | 'turn' | 'turns' | 'relays';
}

/**
 * What the members' side needs open to this host: the signal port (TCP; UDP for the second STUN
 * destination), and with coturn its port (UDP and TCP), its TLS port and its relay range; without
 * coturn the TURN port's STUN answer (UDP).
 */
export function portsToOpen(
  turn: TurnSource,
  signalPort: number,
  turnPort: number,
  turnTlsPort: number,
): OpenPort[] {
  const ports: OpenPort[] = [
    { port: String(signalPort), protocol: 'tcp', use: 'signal' },
    { port: String(signalPort), protocol: 'udp', use: 'stun' },
  ];
  if (turn === 'coturn') {
    ports.push(
      { port: String(turnPort), protocol: 'udp', use: 'turn' },
      { port: String(turnPort), protocol: 'tcp', use: 'turn' },
      { port: String(turnTlsPort), protocol: 'tcp', use: 'turns' },
      { port: `${RELAY_PORTS.min}-${RELAY_PORTS.max}`, protocol: 'udp', use: 'relays' },
    );
  } else if (turn === 'none') {
    ports.push({ port: String(turnPort), protocol: 'udp', use: 'stun' });
  }
  return ports;
}

export interface PublicSignal {
  server: SignalServerHandle;
  /** The address members need, fragment included (secret: the token is in it). */
  signalAddress: string;
  pin: string;
  turn: TurnSource;
  coturn: CoturnSupervisor | undefined;
  /** The ports to open to this host (portsToOpen). */
  ports: OpenPort[];
  /** Where coturn relays and what it maps (relay-addresses.ts); undefined without coturn. */
  relay: RelayPlan | undefined;
  /** The STUN URLs handed out: coturn's and the second destination (stun-responder.ts). */
  stunUrls: string[];
  stateDir: string;
  made: string[];
  close(): Promise<void>;
}

/** ADDR as a URL's host: an IPv6 address in brackets. */
export function urlHostOf(address: string): string {
  return isIP(address) === 6 ? `[${address}]` : address;
}

/** Checks ADDR: a DNS name or an IP address, nothing a URL would read otherwise. */
export function checkPublicAddress(address: string): string {
  const bare = bareHost(address);
  if (isIP(bare) !== 0) return bare;
  if (
    !/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i.test(
      bare,
    )
  ) {
    throw new RangeError(
      `--public takes the name or IP address members reach (got ${JSON.stringify(address)})`,
    );
  }
  return bare.replace(/\.$/, '').toLowerCase();
}

export async function startPublicSignal(o: PublicSignalOptions): Promise<PublicSignal> {
  const address = checkPublicAddress(o.address);
  const urlHost = urlHostOf(address);
  const env = o.env;
  const host = o.host ?? (env.PAPO_SIGNAL_HOST?.trim() || (isIP(address) === 6 ? '::' : '0.0.0.0'));
  const port = o.port ?? (env.PAPO_SIGNAL_PORT?.trim() ? Number(env.PAPO_SIGNAL_PORT) : DEFAULT_PORT);
  const givenTls =
    o.tls ??
    tlsFiles(env.PAPO_SIGNAL_TLS_CERT?.trim() || undefined, env.PAPO_SIGNAL_TLS_KEY?.trim() || undefined);
  const state = await openPublicState(o.stateDir, address, { selfSigned: givenTls === undefined });
  const tls = givenTls ?? { certFile: state.certFile, keyFile: state.keyFile };
  if (env.PAPO_SIGNAL_TOKEN?.trim()) {
    o.log(`PAPO_SIGNAL_TOKEN is not used with --public: the token is the one kept in ${state.dir}`);
  }

  // TURN: a TURN server of the operator's own (PAPO_TURN_URLS and PAPO_TURN_SECRET), else coturn
  // when it is installed, else none (and the warning).
  const externalTurn = Boolean(env.PAPO_TURN_URLS?.trim() && env.PAPO_TURN_SECRET?.trim());
  const binary = externalTurn ? undefined : findTurnserver(env);
  const turn: TurnSource = externalTurn ? 'external' : binary !== undefined ? 'coturn' : 'none';
  let coturn: CoturnSupervisor | undefined;
  let relay: RelayPlan | undefined;
  const stun: StunResponder[] = [];
  let server: SignalServerHandle | undefined;
  const stunUrls: string[] = [];
  try {
    // Read at each GET /healthz: whether coturn runs now, and the STUN destinations.
    const healthNotes = () => [
      ...(turn === 'none'
        ? o.noTurnWarning
        : turn === 'external'
          ? ['turn: the TURN servers of PAPO_TURN_URLS']
          : [
              `turn: coturn ${coturn?.pid !== undefined ? 'running' : 'not running now (being started again)'}`,
            ]),
      `stun: ${stunUrls.join(' ')} (a Binding to two of them from one socket tells a symmetric NAT: another mapped port for each)`,
    ];
    if (binary !== undefined) {
      // ADR 0112: relays on ADDR, or behind 1:1 NAT on the private address ADDR stands for.
      // A DNS name stands for the address it resolves to here (an operator's A record for this
      // host): the same plan as that IP, so a name behind 1:1 NAT is mapped too.
      const ip = isIP(address) !== 0 ? address : await lookupAddress(address);
      relay = relayPlan(
        ip ?? address,
        localAddresses(),
        ip === undefined ? undefined : await routeSource(ip),
      );
      coturn = await CoturnSupervisor.start(
        binary,
        {
          dir: state.dir,
          secret: state.turnSecret,
          host,
          port: o.turnPort,
          tls: { port: o.turnTlsPort, ...tls },
          externalIp: relay.externalIp,
          relayIp: relay.relayIp,
          allowedPeers: [...relay.allowedSelf, ...peers(env, 'PAPO_TURN_ALLOWED_PEERS')],
          deniedPeers: peers(env, 'PAPO_TURN_DENIED_PEERS'),
          // So that coturn dies with papo, even when papo is killed with SIGKILL (Linux).
          setpriv: findSetpriv(env),
        },
        o.log,
      );
      stunUrls.push(`stun:${urlHost}:${o.turnPort}`);
    }
    const fromEnv = configFromEnv(env).turn;
    // The welcome reads this object at each connection. The signal port's STUN URL joins the list
    // once that port is known (port 0); a welcome in that moment lacks only that second destination.
    const turnConfig: TurnConfig = {
      ...fromEnv,
      stunUrls,
      ...(coturn === undefined
        ? {}
        : {
            secret: state.turnSecret,
            urls: [
              `turn:${urlHost}:${o.turnPort}?transport=udp`,
              `turn:${urlHost}:${o.turnPort}?transport=tcp`,
              `turns:${urlHost}:${o.turnTlsPort}?transport=tcp`,
            ],
          }),
    };
    const overrides: Partial<SignalConfig> = { tls, token: state.token, healthNotes, turn: turnConfig };
    server = await startSignalServer({
      env,
      log: o.log,
      defaultMetrics: DEFAULT_METRICS,
      host,
      port,
      config: overrides,
    });
    // The second STUN destination, on UDP at the signal port's number (stun-responder.ts).
    stun.push(await startStunResponder(host, server.port));
    stunUrls.push(`stun:${urlHost}:${server.port}`);
    // Without coturn, its port answers Binding too: doctor still has two destinations to tell a
    // symmetric NAT by (the one network that most needs the TURN that is missing).
    if (turn === 'none') {
      try {
        stun.push(await startStunResponder(host, o.turnPort));
        stunUrls.push(`stun:${urlHost}:${o.turnPort}`);
      } catch (err) {
        o.log(
          `stun: could not answer on UDP port ${o.turnPort} too (${messageOf(err)}): members see one STUN destination`,
        );
      }
    }
    stunUrls.push(...fromEnv.stunUrls);
  } catch (err) {
    await Promise.all(stun.map((r) => r.close()));
    await server?.close();
    await coturn?.stop();
    throw err;
  }
  const pin = pinOfCertificate(readFileSync(tls.certFile));
  const signalAddress = `wss://${urlHost}:${server.port}/#pin=${pin}&token=${state.token}`;
  const renewal =
    givenTls !== undefined
      ? undefined
      : setInterval(() => {
          ensureCertificate(state, address).then(
            (renewed) => {
              if (!renewed) return;
              o.log('tls: the self-signed certificate was made again with the same key (same pin)');
              coturn?.restart();
            },
            (err: Error) => o.log(`tls: renewing the self-signed certificate failed: ${err.message}`),
          );
        }, RENEW_CHECK_MS);
  renewal?.unref();
  const handle = server;
  let closing: Promise<void> | undefined;
  return {
    server: handle,
    signalAddress,
    pin,
    turn,
    coturn,
    relay,
    ports: portsToOpen(turn, handle.port, o.turnPort, o.turnTlsPort),
    stunUrls,
    stateDir: state.dir,
    made: state.made,
    close() {
      closing ??= (async () => {
        if (renewal !== undefined) clearInterval(renewal);
        await Promise.all([handle.close(), ...stun.map((r) => r.close()), coturn?.stop()]);
      })();
      return closing;
    },
  };
}

/** PAPO_TURN_ALLOWED_PEERS / PAPO_TURN_DENIED_PEERS: addresses or first-last ranges. */
function peers(env: NodeJS.ProcessEnv, name: string): string[] {
  const list = (env[name] ?? '').split(/[\s,]+/).filter((p) => p !== '');
  for (const p of list) {
    const ends = p.split('-');
    if (ends.length > 2 || ends.some((e) => isIP(e) === 0)) {
      throw new RangeError(`${name}: "${p}" is not an address or a first-last range`);
    }
  }
  return list;
}

/** The address a DNS name resolves to on this host (IPv4 first), or undefined when it does not. */
async function lookupAddress(name: string): Promise<string | undefined> {
  try {
    return (await lookup(name, { order: 'ipv4first' })).address;
  } catch {
    return undefined;
  }
}
