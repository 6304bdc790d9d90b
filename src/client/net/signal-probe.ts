// What `papo doctor` asks a signal server (ADR 0072): one WebSocket, as the member would open it
// (the same URL, the same token, `?peer=` with the profile's node id so that the TURN credentials
// in the welcome are the ones the member gets), read until the first message, closed. No `join`
// is ever sent: the server learns no topic, nobody in the room sees a peer, and the profile's lock
// is not taken, so it runs beside the profile's papo mcp.
import WebSocket from 'ws';
import { type IceServer, SIGNAL_MAX_MESSAGE_BYTES } from '../../signal-protocol.js';
import { messageOf } from '../errors.js';
import { validateIceServers } from './ice-config.js';
import { pinnedSocket, signalSocketUrl, welcomeNotes } from './signal-client.js';
import { tokenMayTravel } from './signal-token.js';
import { type CertificateProblem, certificateProblemOf, PIN_MISMATCH } from './tls-pin.js';

export type { CertificateProblem };

export type SignalProbe =
  /** `notes`: the welcome's (e.g. `turn_limited`: the server has TURN but gave this address none now). */
  | { outcome: 'welcome'; ms: number; iceServers: IceServer[]; notes: string[] }
  /** The server answered and refused: an `unauthorized` error, or HTTP 401/403. */
  | { outcome: 'unauthorized'; ms: number; detail: string }
  /** Another refusal (rate_limited...), an HTTP answer that is not an upgrade, or no welcome. */
  | { outcome: 'not_papo' | 'refused'; ms: number; detail: string }
  | { outcome: 'unreachable'; detail: string }
  /** The server's key is not the one the address pins (ADR 0089); nothing was sent to it. */
  | { outcome: 'pin_mismatch'; detail: string }
  /** TLS refused the server's certificate (self-signed without a pin, expired...); nothing was sent. */
  | { outcome: 'certificate'; problem: CertificateProblem; detail: string };

export interface SignalProbeOptions {
  url: string;
  /** Sent as `Authorization: Bearer`, only where a token may travel (signal-token.ts). */
  token?: string | undefined;
  /** The profile's node id, for `?peer=` (the tag of the TURN credentials). */
  peer?: string | undefined;
  /** The pin of the server's key, from the room's signal address (tls-pin.ts). */
  pin?: string | undefined;
  timeoutMs?: number;
}

export function probeSignal(options: SignalProbeOptions): Promise<SignalProbe> {
  const timeoutMs = options.timeoutMs ?? 5000;
  const socketUrl = new URL(signalSocketUrl(options.url));
  if (options.peer !== undefined) socketUrl.searchParams.set('peer', options.peer);
  const headers: Record<string, string> = {};
  if (options.token && tokenMayTravel(socketUrl.toString()))
    headers.authorization = `Bearer ${options.token}`;
  const started = Date.now();
  return new Promise((resolve) => {
    let settled = false;
    let opened = false;
    let ws: WebSocket;
    const finish = (result: SignalProbe) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (ws.readyState === WebSocket.OPEN) ws.close(1000, 'bye');
      else ws.terminate();
      resolve(result);
    };
    const timer = setTimeout(() => {
      const seconds = Math.round(timeoutMs / 1000);
      finish(
        opened
          ? { outcome: 'not_papo', ms: Date.now() - started, detail: `no welcome within ${seconds} s` }
          : { outcome: 'unreachable', detail: `no connection within ${seconds} s` },
      );
    }, timeoutMs);
    try {
      ws = new WebSocket(socketUrl.toString(), {
        headers,
        maxPayload: SIGNAL_MAX_MESSAGE_BYTES,
        handshakeTimeout: timeoutMs,
        ...pinnedSocket(socketUrl, options.pin, timeoutMs),
      });
    } catch (err) {
      clearTimeout(timer);
      resolve({ outcome: 'unreachable', detail: messageOf(err) });
      return;
    }
    ws.on('open', () => {
      opened = true;
    });
    ws.on('unexpected-response', (_req, res) => {
      const ms = Date.now() - started;
      const status = res.statusCode ?? 0;
      const detail = `HTTP ${status}`;
      if (status === 401 || status === 403) finish({ outcome: 'unauthorized', ms, detail });
      else if (status === 429) finish({ outcome: 'refused', ms, detail });
      else if (status >= 502 && status <= 504) finish({ outcome: 'unreachable', detail });
      else finish({ outcome: 'not_papo', ms, detail });
    });
    ws.on('message', (raw, isBinary) => {
      const ms = Date.now() - started;
      let m: Record<string, unknown> | undefined;
      try {
        const parsed: unknown = isBinary ? undefined : JSON.parse(raw.toString());
        m = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : undefined;
      } catch {
        m = undefined;
      }
      if (m?.t === 'welcome') {
        const iceServers = validateIceServers(m.iceServers ?? []);
        if (iceServers !== undefined)
          return finish({ outcome: 'welcome', ms, iceServers, notes: welcomeNotes(m.notes) });
        return finish({ outcome: 'not_papo', ms, detail: 'a welcome with malformed ICE servers' });
      }
      if (m?.t === 'error') {
        const code = typeof m.code === 'string' ? m.code.slice(0, 40) : 'unknown';
        const message = typeof m.message === 'string' ? m.message.slice(0, 200) : '';
        const detail = message === '' ? code : `${code}: ${message}`;
        return finish({ outcome: code === 'unauthorized' ? 'unauthorized' : 'refused', ms, detail });
      }
      finish({ outcome: 'not_papo', ms, detail: 'the first message is not a welcome' });
    });
    ws.on('error', (err) => {
      if ((err as NodeJS.ErrnoException).code === PIN_MISMATCH)
        finish({ outcome: 'pin_mismatch', detail: err.message.slice(0, 200) });
      const problem = certificateProblemOf(err);
      if (problem !== undefined)
        finish({ outcome: 'certificate', problem, detail: err.message.slice(0, 200) });
      if (!opened) finish({ outcome: 'unreachable', detail: err.message.slice(0, 200) });
    });
    ws.on('close', (code) => {
      if (opened) finish({ outcome: 'not_papo', ms: Date.now() - started, detail: `closed (${code})` });
    });
  });
}
