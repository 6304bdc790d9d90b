// A malicious signal server for the attack tests: it speaks signal protocol v1 well enough for
// real members to use it (welcome, join, peers, joined/left, signal forwarding), records every
// byte it sees, and lets a test alter, drop, replay or inject what it forwards, announce peers that
// do not exist, and choose the ICE servers of its welcome. Also a recording proxy for a real
// signal server, to capture what an honest server is given.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type RawData, WebSocket, WebSocketServer } from 'ws';
import { SIGNAL_PATH } from '../../src/signal-protocol.js';

export interface Recorded {
  /** 'in' = client to server, 'out' = server to client. */
  dir: 'in' | 'out';
  /** The peer id the socket joined as, once known. */
  peer: string | null;
  text: string;
}

export interface Forward {
  to: string;
  data: string;
  /** The `from` to claim (default: the real sender). */
  from?: string;
}

export interface EvilOptions {
  /** ICE servers of the welcome (default none). */
  iceServers?: unknown[];
  /** Extra peer ids announced in every `peers` answer, as if they were on the topic. */
  fakePeers?: string[];
  /**
   * What to forward for one `signal` from `from` to `to` carrying `data`: the default forwards it
   * as is. Return [] to drop it, altered copies to tamper, several to replay.
   */
  tamper?: (signal: { topic: string; from: string; to: string; data: string }) => Forward[];
}

export interface EvilSignalServer {
  /** ws://127.0.0.1:port (members append /v1/ws). */
  url: string;
  records: Recorded[];
  /** Every `data` blob members asked it to forward, in order, with sender and addressee. */
  blobs: { topic: string; from: string; to: string; data: string }[];
  /** Peers currently joined, by id. */
  peers(): string[];
  /** Sends a server message to a joined peer (a string is sent as is). */
  inject(peer: string, message: unknown): void;
  close(): Promise<void>;
}

interface Conn {
  ws: WebSocket;
  peer: string | null;
  topic: string | null;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
  );
}

export async function startEvilSignalServer(options: EvilOptions = {}): Promise<EvilSignalServer> {
  const http = createServer((_req, res) => {
    res.writeHead(404).end();
  });
  const wss = new WebSocketServer({ server: http, path: SIGNAL_PATH });
  const conns = new Set<Conn>();
  const records: Recorded[] = [];
  const blobs: EvilSignalServer['blobs'] = [];

  const send = (c: Conn, message: unknown) => {
    const text = typeof message === 'string' ? message : JSON.stringify(message);
    records.push({ dir: 'out', peer: c.peer, text });
    if (c.ws.readyState === WebSocket.OPEN) c.ws.send(text);
  };
  const byPeer = (peer: string) => [...conns].find((c) => c.peer === peer);

  wss.on('connection', (ws) => {
    const c: Conn = { ws, peer: null, topic: null };
    conns.add(c);
    ws.on('error', () => {});
    send(c, { t: 'welcome', v: 1, iceServers: options.iceServers ?? [] });
    ws.on('message', (raw: RawData) => {
      const text = raw.toString();
      records.push({ dir: 'in', peer: c.peer, text });
      let m: Record<string, unknown>;
      try {
        m = JSON.parse(text) as Record<string, unknown>;
      } catch {
        return;
      }
      if (m.t === 'join' && typeof m.topic === 'string' && typeof m.peer === 'string') {
        c.peer = m.peer;
        c.topic = m.topic;
        const others = [...conns].filter((o) => o !== c && o.topic === c.topic && o.peer !== null);
        send(c, {
          t: 'peers',
          topic: c.topic,
          peers: [...others.map((o) => o.peer), ...(options.fakePeers ?? [])],
        });
        for (const o of others) send(o, { t: 'joined', topic: c.topic, peer: c.peer });
      } else if (
        m.t === 'signal' &&
        typeof m.to === 'string' &&
        typeof m.data === 'string' &&
        c.peer &&
        c.topic
      ) {
        const signal = { topic: c.topic, from: c.peer, to: m.to, data: m.data };
        blobs.push(signal);
        const forwards = options.tamper ? options.tamper(signal) : [{ to: m.to, data: m.data }];
        for (const f of forwards) {
          const target = byPeer(f.to);
          if (target) send(target, { t: 'signal', topic: c.topic, from: f.from ?? c.peer, data: f.data });
        }
      } else if (m.t === 'leave') {
        leave(c);
      }
    });
    ws.on('close', () => {
      leave(c);
      conns.delete(c);
    });
  });

  function leave(c: Conn): void {
    if (c.peer === null || c.topic === null) return;
    for (const o of conns)
      if (o !== c && o.topic === c.topic) send(o, { t: 'left', topic: c.topic, peer: c.peer });
    c.topic = null;
  }

  const port = await listen(http);
  return {
    url: `ws://127.0.0.1:${port}`,
    records,
    blobs,
    peers: () => [...conns].flatMap((c) => (c.peer ? [c.peer] : [])),
    inject(peer, message) {
      const c = byPeer(peer);
      if (c) send(c, message);
    },
    async close() {
      for (const c of conns) c.ws.terminate();
      wss.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

export interface RecordingProxy {
  url: string;
  records: Recorded[];
  close(): Promise<void>;
}

/** A WebSocket proxy in front of a real signal server that records both directions. */
export async function startRecordingProxy(upstream: string): Promise<RecordingProxy> {
  const http = createServer((_req, res) => {
    res.writeHead(404).end();
  });
  const wss = new WebSocketServer({ server: http, path: SIGNAL_PATH });
  const records: Recorded[] = [];
  const sockets = new Set<WebSocket>();
  wss.on('connection', (down) => {
    const up = new WebSocket(`${upstream}${SIGNAL_PATH}`);
    sockets.add(down);
    sockets.add(up);
    let peer: string | null = null;
    const queued: string[] = [];
    down.on('error', () => {});
    up.on('error', () => {});
    up.on('open', () => {
      for (const q of queued) up.send(q);
      queued.length = 0;
    });
    down.on('message', (raw: RawData) => {
      const text = raw.toString();
      const m = /"peer":"([0-9a-f]{64})"/.exec(text);
      if (m && text.includes('"t":"join"')) peer = m[1] ?? null;
      records.push({ dir: 'in', peer, text });
      if (up.readyState === WebSocket.OPEN) up.send(text);
      else queued.push(text);
    });
    up.on('message', (raw: RawData) => {
      const text = raw.toString();
      records.push({ dir: 'out', peer, text });
      if (down.readyState === WebSocket.OPEN) down.send(text);
    });
    down.on('close', () => up.close());
    up.on('close', () => down.close());
  });
  const port = await listen(http);
  return {
    url: `ws://127.0.0.1:${port}`,
    records,
    async close() {
      for (const s of sockets) s.terminate();
      wss.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

/** What a capture must never hold in clear: SDP, candidates, IPv4 addresses. */
export const CLEAR_TEXT_LEAKS: [string, RegExp][] = [
  ['SDP fingerprint', /a=fingerprint/i],
  ['SDP', /v=0\r?\n|m=application|a=ice-ufrag|a=ice-pwd/i],
  ['ICE candidate', /candidate:|typ (host|srflx|relay)/i],
  ['IPv4 address', /(?<![0-9.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![0-9.])/],
];

/** The leaks found in a text (and in base64 blobs decoded, in case something was only encoded). */
export function findLeaks(text: string): string[] {
  const found: string[] = [];
  for (const [what, re] of CLEAR_TEXT_LEAKS) if (re.test(text)) found.push(what);
  return found;
}
