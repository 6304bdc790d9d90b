// TLS to a server the room's signal address pins (ADR 0089): the address carries the pin of the
// server's key (`certificatePin`, signal-protocol.ts), so a member trusts a self-signed server
// without a CA file. Node checks a certificate's chain before anything else (it calls
// `checkServerIdentity` only for a chain that verified, so a self-signed one never gets there), so
// the check is made here instead: the connection is opened with `rejectUnauthorized: false` and
// kept only when the key's pin is the one expected, or when the certificate verifies for the name
// as it would without a pin (a pin adds a trust anchor; it takes none away, so a server that moves
// to a CA's certificate with a new key keeps working). Nothing is written on the connection before
// that check: the token travels in the HTTP upgrade, which is sent after it.
import { isIP } from 'node:net';
import { type ConnectionOptions, connect, type TLSSocket } from 'node:tls';
import { certificatePin } from '../../signal-protocol.js';
import { bareHost } from '../hosts.js';

/** The `code` of a connection refused because the server's key is not the pinned one. */
export const PIN_MISMATCH = 'PIN_MISMATCH';

/**
 * Why a server's certificate was not trusted, as a person can fix it: self-signed (and no pin for
 * it), signed by an authority this machine does not know, expired, not valid yet (a clock), or made
 * for another name.
 */
export type CertificateProblem = 'self_signed' | 'unknown_ca' | 'expired' | 'not_yet_valid' | 'name_mismatch';

/** The certificate problem behind a TLS error (Node's OpenSSL codes), or undefined for any other error. */
export function certificateProblemOf(err: unknown): CertificateProblem | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  switch (code) {
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
      return 'self_signed';
    // A private CA's root in the chain, or a leaf whose issuer this machine does not have.
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
    case 'UNABLE_TO_GET_ISSUER_CERT':
    case 'UNABLE_TO_GET_ISSUER_CERT_LOCALLY':
      return 'unknown_ca';
    case 'CERT_HAS_EXPIRED':
      return 'expired';
    case 'CERT_NOT_YET_VALID':
      return 'not_yet_valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return 'name_mismatch';
    default:
      return undefined;
  }
}

export class PinMismatchError extends Error {
  override readonly name = 'PinMismatchError';
  readonly code = PIN_MISMATCH;
}

/** The pin the room's address gives for TLS to `host` (the signal server's host only), if any. */
export function pinForHost(
  signal: { url: string; pin?: string | undefined },
  host: string,
): string | undefined {
  if (signal.pin === undefined) return undefined;
  const bare = (h: string) => bareHost(h.toLowerCase());
  let signalHost: string;
  try {
    signalHost = new URL(signal.url).hostname;
  } catch {
    return undefined;
  }
  return bare(signalHost) === bare(host) ? signal.pin : undefined;
}

/** The pin of the key the server presented, or undefined when it presented no certificate. */
export function peerPin(socket: TLSSocket): string | undefined {
  const cert = socket.getPeerX509Certificate();
  if (cert === undefined) return undefined;
  return certificatePin(cert.publicKey.export({ type: 'spki', format: 'der' }));
}

/**
 * Whether a connection opened with `rejectUnauthorized: false` may be used: undefined when the
 * server's key has the pin, or its certificate verified for the name (Node's `authorized`, which
 * covers the chain and the host name); else the error that says the key is not the one expected.
 */
export function pinVerdict(socket: TLSSocket, where: string, pin: string): PinMismatchError | undefined {
  if (peerPin(socket) === pin || socket.authorized) return undefined;
  return new PinMismatchError(
    `the server at ${where} presents a certificate whose key is not the one the room's invite pins: its key changed, or another machine answers at that address`,
  );
}

/**
 * TLS options for `host` (SNI only for a name). `pinned`: the caller checks the server's key
 * (pinVerdict) instead of the certificate authorities.
 */
export function tlsOptions(host: string, port: number, pinned: boolean): ConnectionOptions {
  const bare = bareHost(host);
  return {
    host: bare,
    port,
    ...(pinned ? { rejectUnauthorized: false } : {}),
    ...(isIP(bare) === 0 ? { servername: bare } : {}),
  };
}

/**
 * Opens TLS to `host`:`port` and resolves with the socket once the server's key passed
 * `pinVerdict`; rejects with a PinMismatchError, the socket's error, or a timeout. Nothing has been
 * written on the socket when it resolves.
 */
export function connectPinned(options: {
  host: string;
  port: number;
  pin: string;
  timeoutMs: number;
}): Promise<TLSSocket> {
  const { host, port, pin, timeoutMs } = options;
  return new Promise((resolve, reject) => {
    const socket = connect(tlsOptions(host, port, true));
    const fail = (err: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(err);
    };
    const timer = setTimeout(
      () => fail(new Error(`no TLS connection within ${Math.round(timeoutMs / 1000)} s`)),
      timeoutMs,
    );
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      const refused = pinVerdict(socket, `${host}:${port}`, pin);
      if (refused !== undefined) return fail(refused);
      clearTimeout(timer);
      socket.off('error', fail);
      resolve(socket);
    });
  });
}

/**
 * A `createConnection` for `ws` (and `http.request`, which calls it with a callback): the socket
 * is handed over only after the pin check, so the upgrade request and its token go to the pinned
 * key only. A refusal reaches the WebSocket as its 'error' (code PIN_MISMATCH).
 */
export function pinnedConnection(
  pin: string,
  timeoutMs: number,
): (
  opts: { host?: string | null; port?: number | string | null },
  done: (err: Error | null, socket?: TLSSocket) => void,
) => undefined {
  return (opts, done) => {
    const host = opts.host ?? 'localhost';
    const port = Number(opts.port ?? 443);
    connectPinned({ host, port, pin, timeoutMs }).then(
      (socket) => done(null, socket),
      (err: Error) => done(err),
    );
    return undefined;
  };
}
