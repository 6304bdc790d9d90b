// Fuzz targets for the parsers of outside input that targets.ts did not reach (issue 13, item 4):
// the signal server's message parser and the member's side of the protocol, signal URLs and
// PAPO_SIGNAL_TOKEN, ICE servers from the environment and the welcome, JSON-RPC line splitting,
// tool arguments, STUN/TURN messages (and their TCP framing), the profile's files read back,
// inert text, the signal server's TLS files, the TURN credential limiter, and the agent clients'
// configuration files that `papo doctor` reads. Two parsers also have a target of their own as
// pure functions, without sockets or a profile folder, fast enough for 1 M cases: the member's
// `readServerMessage` (signal-client.ts) and each reader of the profile's files (profile-store.ts,
// inbox-store.ts, log-file.ts, store/review.ts). Each property can fail: the parser's own error
// type and nothing else, round trips where there is an encoder, bounded output, no prototype
// pollution for the JSON readers, the documented invariant of each (a token never in an error, a
// limiter that never gives more than its share, ...).
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import { type WebSocket, WebSocketServer } from 'ws';
import { codex } from '../../src/cli/install/codex.js';
import { commandLine, registrationIn } from '../../src/cli/install/registration.js';
import { isPapoError } from '../../src/client/errors.js';
import {
  parseIceServers,
  parseIceUrl,
  resolveIceConfig,
  toNativeIceServers,
  validateIceServers,
} from '../../src/client/net/ice-config.js';
import { readServerMessage, SignalClient } from '../../src/client/net/signal-client.js';
import { SignalOpener, sealSignal } from '../../src/client/net/signal-seal.js';
import {
  parseSignalTokens,
  signalOrigin,
  signalTokenFor,
  tokenMayTravel,
} from '../../src/client/net/signal-token.js';
import { TurnGate } from '../../src/client/net/turn-gate.js';
import { addressOf, errorOf, mappedOf } from '../../src/client/net/turn-probe.js';
import { allocatedAddress, giveBack, relayedAddressOf } from '../../src/client/net/turn-release.js';
import { nextFrame } from '../../src/client/net/turn-tcp-bridge.js';
import { forgetPeers } from '../../src/client/room/forget.js';
import { KnownNames } from '../../src/client/room/member-names.js';
import { parseJsonText } from '../../src/client/store/durable-file.js';
import { parseLegacyInbox, parseStoredMessage } from '../../src/client/store/inbox-store.js';
import { parseLogLine } from '../../src/client/store/log-file.js';
import { formatLogEntry, reviewStates } from '../../src/client/store/log-format.js';
import { afterAck, envelopeOfQueued, forgetInOutbox, owedSummary } from '../../src/client/store/outbox.js';
import { parseProfileFile } from '../../src/client/store/profile-file.js';
import {
  INBOX_DIR,
  LOG_FILE,
  NAMES_FILE,
  OUTBOX_FILE,
  PEERS_FILE,
  PROFILE_FILE,
  REVIEW_FILE,
  SECRET_KEY_FILE,
} from '../../src/client/store/profile-files.js';
import {
  openMemberState,
  openProfile,
  parseKeyText,
  parseNamesFile,
  parseOutboxFile,
  parsePeersFile,
} from '../../src/client/store/profile-store.js';
import {
  compilePattern,
  holds,
  MAX_REVIEW_RULES,
  parseDecision,
  readReviewSettings,
} from '../../src/client/store/review.js';
import {
  decodeFrame,
  encodeFrame,
  envelopeOf,
  type MsgFrame,
  msgFrame,
} from '../../src/client/wire/frames.js';
import { inertText } from '../../src/client/wire/inert-text.js';
import type { Envelope, LogEntry } from '../../src/client/wire/messages.js';
import { isMemberName, MESSAGE_ID_PATTERN, NODE_ID_PATTERN } from '../../src/client/wire/names.js';
import {
  formatSignalAddress,
  isLoopbackSignalUrl,
  MAX_SIGNAL_URL_BYTES,
  parseSignalAddress,
  parseSignalUrl,
  signalUrlOf,
} from '../../src/client/wire/signal-url.js';
import { ChannelPush } from '../../src/mcp/channel-pump.js';
import { readLines } from '../../src/mcp/json-lines.js';
import { createSendWindow } from '../../src/mcp/send-rate.js';
import { ArgumentError } from '../../src/mcp/tool-args.js';
import { TOOL_ARGUMENTS } from '../../src/mcp/tool-list.js';
import { createToolHandlers, MemberUnavailable } from '../../src/mcp/tools.js';
import { PEER_PATTERN } from '../../src/signal-protocol.js';
import { text as hubText } from '../../src/signal-server/hub.js';
import { parseClientMessage, parseForwardedSignal } from '../../src/signal-server/parse.js';
import { loadPair, TlsFileError } from '../../src/signal-server/tls.js';
import { TurnIssuer } from '../../src/signal-server/turn-credentials.js';
import { issueLeaf, makeCa } from '../signal-server/tls-ca.js';
import { anyText, applyEdits, byteEdits, check, editsArb, type FuzzTarget, flipsArb } from './targets.js';

const hex64 = fc.stringMatching(/^[0-9a-f]{64}$/);
/** JSON keys that reach odd corners: the prototype's own names. */
const hostileKey = fc.constantFrom(
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'valueOf',
  'hasOwnProperty',
);
/** Any JSON value, with hostile keys among the ordinary ones at every depth. */
const hostileJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 0 }),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 8 }), hostileKey), tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** Object.prototype is untouched (a JSON reader that merges or assigns keys could pollute it). */
/** The fields of a server message a member reads, well-formed or hostile (two targets share them). */
const iceServersArb = fc.oneof(
  fc.array(
    fc.record(
      {
        urls: fc.oneof(fc.string({ maxLength: 30 }), hostileJson),
        username: hostileJson,
        credential: hostileJson,
      },
      { requiredKeys: [] },
    ),
    { maxLength: 3 },
  ),
  hostileJson,
);
const notesArb = fc.oneof(fc.array(fc.string({ maxLength: 45 }), { maxLength: 10 }), hostileJson);
const codeArb = fc.oneof(fc.constantFrom('rate_limited', 'room_full', 'unknown_peer'), hostileJson);

function assertNoPollution(): void {
  const probe = {} as Record<string, unknown>;
  for (const key of ['t', 'x', 'polluted', 'name', 'urls', 'command', 'peer', 'id', 'msg']) {
    if (probe[key] !== undefined) throw new Error(`Object.prototype was polluted with ${key}`);
  }
  if (Object.keys(Object.prototype).length !== 0) throw new Error('Object.prototype gained keys');
}

/** A JSON text built from `value` with `__proto__` written as an own key (JSON.stringify drops nothing). */
const jsonTextArb = fc.oneof(
  hostileJson.map((v) => JSON.stringify(v) ?? 'null'),
  fc.constantFrom(
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    '[{"__proto__":{"polluted":1}}]',
  ),
);

// ---------- the signal server's message parser (in-process) ----------

const serverParse: FuzzTarget = {
  name: 'signal protocol messages (server parse.ts)',
  quickRuns: 1500,
  run: (budget) =>
    check(
      'signal protocol messages (server parse.ts)',
      fc.property(
        fc.oneof(
          anyText,
          jsonTextArb,
          fc
            .record(
              {
                t: fc.oneof(
                  fc.constantFrom('join', 'signal', 'leave', '__proto__'),
                  fc.jsonValue({ maxDepth: 1 }),
                ),
                topic: fc.oneof(hex64, fc.string({ maxLength: 70 }), fc.jsonValue({ maxDepth: 1 })),
                peer: fc.oneof(hex64, fc.string({ maxLength: 70 }), fc.jsonValue({ maxDepth: 1 })),
                to: fc.oneof(hex64, fc.jsonValue({ maxDepth: 1 })),
                data: fc.oneof(fc.base64String({ maxLength: 100 }), fc.jsonValue({ maxDepth: 1 })),
                x: fc.jsonValue({ maxDepth: 1 }),
              },
              { requiredKeys: [] },
            )
            .chain((o) =>
              fc.oneof(
                fc.constant(JSON.stringify(o)),
                editsArb.map((e) => applyEdits(JSON.stringify(o), e)),
              ),
            ),
        ),
        (raw) => {
          const r = parseClientMessage(raw);
          if (!r.ok) {
            if (typeof r.reason !== 'string' || r.reason.length > 100) throw new Error('reason unbounded');
            return true;
          }
          const m = r.message as unknown as Record<string, unknown>;
          const keys = Object.keys(m).sort().join(',');
          const expected = { join: 'peer,t,topic', signal: 'data,t,to,topic', leave: 't,topic' }[
            m.t as string
          ];
          if (keys !== expected) throw new Error(`accepted ${m.t} with keys ${keys}`);
          if (!/^[0-9a-f]{64}$/.test(String(m.topic))) throw new Error('accepted a bad topic');
          if (m.peer !== undefined && !PEER_PATTERN.test(String(m.peer)))
            throw new Error('accepted a bad peer');
          if (m.to !== undefined && !PEER_PATTERN.test(String(m.to))) throw new Error('accepted a bad to');
          if (m.t === 'signal' && (typeof m.data !== 'string' || m.data === '')) throw new Error('bad data');
          // What was accepted is what the server forwards: parsing it again gives the same.
          const again = parseClientMessage(JSON.stringify(m));
          if (!again.ok || JSON.stringify(again.message) !== JSON.stringify(m))
            throw new Error('no round trip');
          return true;
        },
      ),
      budget,
    ),
};

// ---------- a signal handed over by another replica through Redis (parse.ts) ----------

/**
 * Anyone who can write to Redis can publish on papo's channels: whatever the frame, what is
 * accepted has the fields a client's signal must have, is no larger than a client's frame can
 * become, and the frame the replica writes anew from it reads back as the same fields.
 */
const forwardedParse: FuzzTarget = {
  name: 'signals between replicas (server parse.ts, parseForwardedSignal)',
  quickRuns: 1500,
  run: (budget) =>
    check(
      'signals between replicas (server parse.ts, parseForwardedSignal)',
      fc.property(
        fc.oneof(
          anyText,
          jsonTextArb,
          fc
            .record(
              {
                t: fc.oneof(
                  fc.constantFrom('signal', 'joined', 'error', '__proto__'),
                  fc.jsonValue({ maxDepth: 1 }),
                ),
                topic: fc.oneof(hex64, fc.string({ maxLength: 70 }), fc.jsonValue({ maxDepth: 1 })),
                from: fc.oneof(hex64, fc.jsonValue({ maxDepth: 1 })),
                to: fc.oneof(hex64, fc.jsonValue({ maxDepth: 1 })),
                data: fc.oneof(
                  fc.base64String({ maxLength: 100 }),
                  fc.string({ maxLength: 40 }),
                  fc.jsonValue({ maxDepth: 1 }),
                ),
                peer: hex64,
                x: fc.jsonValue({ maxDepth: 1 }),
              },
              { requiredKeys: [] },
            )
            .chain((o) =>
              fc.oneof(
                fc.constant(JSON.stringify(o)),
                editsArb.map((e) => applyEdits(JSON.stringify(o), e)),
              ),
            ),
        ),
        fc.integer({ min: 0, max: 400 }),
        (raw, max) => {
          const r = parseForwardedSignal(raw, max);
          if (!r.ok) {
            if (typeof r.reason !== 'string' || r.reason.length > 100) throw new Error('reason unbounded');
            return true;
          }
          if (Buffer.byteLength(raw) > max + 2) throw new Error('accepted a frame past the bound');
          if (!/^[0-9a-f]{64}$/.test(r.topic) || !PEER_PATTERN.test(r.from)) throw new Error('bad ids');
          if (typeof r.data !== 'string' || r.data === '') throw new Error('bad data');
          const frame = hubText.signal(r.topic, r.from, r.data, r.plain);
          if (frame !== JSON.stringify({ t: 'signal', topic: r.topic, from: r.from, data: r.data }))
            throw new Error('the frame written anew is not the canonical JSON');
          const again = parseForwardedSignal(frame, Buffer.byteLength(frame));
          if (!again.ok || again.topic !== r.topic || again.from !== r.from || again.data !== r.data)
            throw new Error('no round trip');
          return true;
        },
      ),
      budget,
    ),
};

// ---------- the member's side: server messages into SignalClient (in-process WebSocket) ----------

const clientSignal: FuzzTarget = {
  name: 'signal protocol messages (member signal-client.ts)',
  quickRuns: 100,
  run: async (budget) => {
    const topic = randomBytes(32).toString('hex');
    const localId = randomBytes(32).toString('hex');
    const remote = randomBytes(32).toString('hex');
    const signalKey = randomBytes(32);
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
    let current: WebSocket | null = null;
    wss.on('connection', (ws) => {
      current = ws;
      ws.on('error', () => {});
      ws.send(JSON.stringify({ t: 'welcome', v: 1, iceServers: [] }));
      ws.on('message', (raw) => {
        const m = JSON.parse(String(raw)) as { t?: string };
        if (m.t === 'join') ws.send(JSON.stringify({ t: 'peers', topic, peers: [] }));
      });
    });
    const port = (wss.address() as { port: number }).port;
    const client = new SignalClient({
      url: `ws://127.0.0.1:${port}`,
      topic,
      localId,
      signalKey,
      backoffMs: [5],
    });
    const problems: string[] = [];
    const sentinels = new Set<string>();
    client.on('welcome', (servers, notes) => {
      if (JSON.stringify(validateIceServers(JSON.parse(JSON.stringify(servers)))) !== JSON.stringify(servers))
        problems.push(`welcome handed on ICE servers that do not validate: ${JSON.stringify(servers)}`);
      if (notes.length > 8 || notes.some((n) => !/^[a-z_]{1,40}$/.test(n)))
        problems.push('bad welcome notes');
    });
    client.on('peers', (peers) => {
      if (peers.some((p) => !PEER_PATTERN.test(p) || p === localId)) problems.push(`bad peers ${peers}`);
    });
    client.on('joined', (peer) => {
      if (!PEER_PATTERN.test(peer) || peer === localId) problems.push(`bad joined ${peer}`);
      sentinels.add(peer);
    });
    client.on('left', (peer) => {
      if (!PEER_PATTERN.test(peer)) problems.push(`bad left ${peer}`);
    });
    client.on('signal', (from, payload) => {
      if (from !== remote || (payload as { fuzz?: unknown })?.fuzz !== true)
        problems.push('a blob opened that was not sealed by the peer');
    });
    client.on('server-error', (e) => {
      if (e.message.length > 200 || typeof e.code !== 'string') problems.push('server-error not bounded');
    });
    client.start();
    const messageArb = fc.oneof(
      {
        weight: 6,
        arbitrary: fc
          .record(
            {
              t: fc.oneof(
                fc.constantFrom('welcome', 'peers', 'joined', 'left', 'signal', 'error'),
                fc.jsonValue({ maxDepth: 1 }),
              ),
              topic: fc.oneof(fc.constant(topic), hex64, fc.jsonValue({ maxDepth: 1 })),
              peer: fc.oneof(fc.constant(remote), fc.constant(localId), hex64, fc.jsonValue({ maxDepth: 1 })),
              peers: fc.oneof(
                fc.array(fc.oneof(hex64, fc.constant(localId), fc.jsonValue({ maxDepth: 1 })), {
                  maxLength: 5,
                }),
                hostileJson,
              ),
              from: fc.oneof(fc.constant(remote), hex64, fc.jsonValue({ maxDepth: 1 })),
              data: fc.oneof(
                fc.constant(sealSignal(signalKey, remote, localId, { fuzz: true })),
                fc
                  .tuple(editsArb)
                  .map(([e]) => applyEdits(sealSignal(signalKey, remote, localId, { fuzz: true }), e)),
                fc.base64String({ maxLength: 200 }),
                hostileJson,
              ),
              iceServers: iceServersArb,
              notes: notesArb,
              code: codeArb,
              message: fc.oneof(fc.string({ maxLength: 300 }), hostileJson),
            },
            { requiredKeys: [] },
          )
          .map((o) => JSON.stringify(o)),
      },
      { weight: 2, arbitrary: fc.oneof(anyText, jsonTextArb) },
    );
    let n = 0;
    try {
      return await check(
        'signal protocol messages (member signal-client.ts)',
        fc.asyncProperty(fc.array(messageArb, { minLength: 1, maxLength: 6 }), async (messages) => {
          for (const m of messages) (current as WebSocket | null)?.send(m);
          // The member still reads the server: a sentinel `joined` comes through (on whatever
          // socket is current: a refusal may have made it redial).
          const sentinel = `${(++n).toString(16).padStart(8, '0')}${randomBytes(28).toString('hex')}`;
          const deadline = Date.now() + 4000;
          while (!sentinels.has(sentinel)) {
            if (Date.now() > deadline) throw new Error('the member stopped reading the signal server');
            (current as WebSocket | null)?.send(JSON.stringify({ t: 'joined', topic, peer: sentinel }));
            await new Promise((r) => setTimeout(r, sentinels.has(sentinel) ? 0 : 2));
          }
          sentinels.delete(sentinel);
          if (problems.length > 0) throw new Error(problems.join('; '));
          return true;
        }),
        budget,
      );
    } finally {
      await client.close();
      for (const ws of wss.clients) ws.terminate();
      await new Promise((r) => wss.close(() => r(undefined)));
    }
  },
};

// ---------- the member's side, the parser alone: readServerMessage (pure, in-process) ----------

/**
 * The same messages as the target above, without a socket: `readServerMessage` (the parser inside
 * SignalClient) must never throw, give null or a checked message (ids that match, ICE servers that
 * validate again to themselves, short notes, bounded errors), accept every well-formed message as
 * it was, and only the peer's own sealed blob may open.
 */
const clientSignalParse: FuzzTarget = {
  name: 'signal protocol messages (member readServerMessage)',
  quickRuns: 1500,
  run: (budget) => {
    const topic = randomBytes(32).toString('hex');
    const localId = randomBytes(32).toString('hex');
    const remote = randomBytes(32).toString('hex');
    const signalKey = randomBytes(32);
    const sealed = sealSignal(signalKey, remote, localId, { fuzz: true });
    const opener = new SignalOpener(signalKey, localId);
    const peerArb = fc.oneof(fc.constant(remote), fc.constant(localId), hex64);
    const iceServerArb = fc.record(
      {
        urls: fc.oneof(
          fc.constantFrom('stun:203.0.113.9', 'turn:203.0.113.9?transport=tcp', 'turns:x:1'),
          fc.array(fc.string({ maxLength: 20 }), { minLength: 1, maxLength: 3 }),
        ),
        username: fc.string({ maxLength: 20 }),
        credential: fc.string({ maxLength: 20 }),
      },
      { requiredKeys: ['urls'] },
    );
    /** Well-formed messages and what each must read as. */
    const validArb: fc.Arbitrary<{ text: string; expected: unknown }> = fc.oneof(
      fc
        .tuple(
          fc.array(iceServerArb, { maxLength: 3 }),
          fc.array(fc.stringMatching(/^[a-z_]{1,40}$/), { maxLength: 8 }),
        )
        .map(([iceServers, notes]) => ({
          text: JSON.stringify({ t: 'welcome', v: 1, iceServers, notes }),
          expected: {
            t: 'welcome',
            iceServers: iceServers.map((s) => ({
              ...s,
              urls: typeof s.urls === 'string' ? [s.urls] : s.urls,
            })),
            notes,
          },
        })),
      fc.uniqueArray(peerArb, { maxLength: 6 }).map((peers) => ({
        text: JSON.stringify({ t: 'peers', topic, peers }),
        expected: { t: 'peers', peers: peers.filter((p) => p !== localId) },
      })),
      fc.tuple(fc.constantFrom('joined' as const, 'left' as const), peerArb).map(([t, peer]) => ({
        text: JSON.stringify({ t, topic, peer }),
        expected: { t, peer },
      })),
      fc
        .tuple(peerArb, fc.oneof(fc.constant(sealed), fc.base64String({ maxLength: 100 })))
        .map(([from, data]) => ({
          text: JSON.stringify({ t: 'signal', topic, from, data }),
          expected: { t: 'signal', from, data },
        })),
      fc
        .tuple(
          fc.constantFrom('rate_limited', 'room_full', 'unknown_peer'),
          fc.string({ maxLength: 300, size: 'max' }),
        )
        .map(([code, message]) => ({
          text: JSON.stringify({ t: 'error', code, message }),
          expected: { t: 'error', code, message: message.slice(0, 200) },
        })),
    );
    const hostileArb = fc
      .record(
        {
          t: fc.oneof(
            fc.constantFrom('welcome', 'peers', 'joined', 'left', 'signal', 'error', '__proto__'),
            fc.jsonValue({ maxDepth: 1 }),
          ),
          topic: fc.oneof(fc.constant(topic), hex64, fc.jsonValue({ maxDepth: 1 })),
          peer: fc.oneof(peerArb, fc.string({ maxLength: 70 }), fc.jsonValue({ maxDepth: 1 })),
          peers: fc.oneof(
            fc.array(fc.oneof(peerArb, fc.jsonValue({ maxDepth: 1 })), { maxLength: 5 }),
            hostileJson,
          ),
          from: fc.oneof(fc.constant(remote), hex64, fc.jsonValue({ maxDepth: 1 })),
          data: fc.oneof(
            fc.constant(sealed),
            editsArb.map((e) => applyEdits(sealed, e)),
            fc.base64String({ maxLength: 200 }),
            hostileJson,
          ),
          iceServers: iceServersArb,
          notes: notesArb,
          code: codeArb,
          message: fc.oneof(fc.string({ maxLength: 300, size: 'max' }), hostileJson),
        },
        { requiredKeys: [] },
      )
      .map((o) => JSON.stringify(o));
    return check(
      'signal protocol messages (member readServerMessage)',
      fc.property(
        fc.oneof(
          { weight: 3, arbitrary: validArb },
          { weight: 4, arbitrary: hostileArb.map((text) => ({ text, expected: undefined })) },
          {
            weight: 2,
            arbitrary: fc
              .tuple(
                fc.oneof(
                  validArb.map((v) => v.text),
                  hostileArb,
                ),
                editsArb,
              )
              .map(([t, e]) => ({ text: applyEdits(t, e), expected: undefined })),
          },
          {
            weight: 1,
            arbitrary: fc.oneof(anyText, jsonTextArb).map((text) => ({ text, expected: undefined })),
          },
        ),
        ({ text, expected }) => {
          const m = readServerMessage(text, topic, localId);
          if (expected !== undefined && JSON.stringify(m) !== JSON.stringify(expected))
            throw new Error(`a well-formed message read as ${JSON.stringify(m)?.slice(0, 300)}`);
          assertNoPollution();
          if (m === null) return true;
          const sent = JSON.parse(text) as Record<string, unknown>;
          if (sent.t !== m.t) throw new Error(`read ${m.t} from ${String(sent.t)}`);
          switch (m.t) {
            case 'welcome': {
              const again = validateIceServers(JSON.parse(JSON.stringify(m.iceServers)));
              if (JSON.stringify(again) !== JSON.stringify(m.iceServers))
                throw new Error(`ICE servers that do not validate again: ${JSON.stringify(m.iceServers)}`);
              if (m.notes.length > 8 || m.notes.some((n) => !/^[a-z_]{1,40}$/.test(n)))
                throw new Error('bad notes');
              break;
            }
            case 'peers':
              if (sent.topic !== topic) throw new Error('peers of another topic');
              if (
                m.peers.some((p) => !PEER_PATTERN.test(p) || p === localId) ||
                new Set(m.peers).size !== m.peers.length
              )
                throw new Error(`bad peers ${m.peers}`);
              break;
            case 'joined':
            case 'left':
              if (sent.topic !== topic || !PEER_PATTERN.test(m.peer) || m.peer !== sent.peer)
                throw new Error(`bad ${m.t} ${m.peer}`);
              break;
            case 'signal': {
              if (sent.topic !== topic || !PEER_PATTERN.test(m.from))
                throw new Error(`bad signal from ${m.from}`);
              const opened = opener.open(m.data, m.from);
              if (
                opened.ok &&
                (opened.from !== remote || (opened.payload as { fuzz?: unknown })?.fuzz !== true)
              )
                throw new Error('a blob opened that was not sealed by the peer');
              break;
            }
            case 'error':
              if (typeof m.code !== 'string' || typeof m.message !== 'string' || m.message.length > 200)
                throw new Error('server error not bounded');
              break;
          }
          return true;
        },
      ),
      budget,
    );
  },
};

// ---------- signal URLs and PAPO_SIGNAL_TOKEN ----------

const urlTextArb = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc
    .tuple(
      fc.constantFrom('ws', 'wss', 'http', 'https', 'ftp', 'WS', 'wss ', 'javascript', ''),
      fc.constantFrom('://', ':/', ':', '://user:pw@'),
      fc.oneof(
        fc.domain(),
        fc.ipV4(),
        fc.ipV6().map((h) => `[${h}]`),
        fc.constantFrom('localhost', '127.0.0.1', '[::1]', ''),
      ),
      fc.option(fc.integer({ min: -1, max: 70000 }).map(String)),
      fc.string({ maxLength: 20 }),
    )
    .map(([s, sep, host, port, rest]) => `${s}${sep}${host}${port === null ? '' : `:${port}`}${rest}`),
  anyText,
);

// Signal addresses with a fragment (ADR 0089): a pin (right, short, stray bits), a token (fit, or
// with characters a fragment or a header cannot carry), unknown parts, repeats, either order.
const secretTokenArb = fc.stringMatching(/^[A-Za-z0-9._~+/=-]{16,40}$/).map((t) => `SECRET${t}`);
const fragmentPartArb = fc.oneof(
  fc
    .uint8Array({ minLength: 32, maxLength: 32 })
    .map((b) => `pin=sha256/${Buffer.from(b).toString('base64url')}`),
  fc.string({ maxLength: 50 }).map((x) => `pin=sha256/${x}`),
  secretTokenArb.map((x) => `token=${x}`),
  fc
    .tuple(secretTokenArb, fc.constantFrom(' ', '%20', '"', '#', '&', '\u00e9', ''))
    .map(([x, c]) => `token=${x}${c}`),
  fc.constantFrom('', 'token=', 'pin=', 'pin', 'x=1', '=', '&'),
);
const addressTextArb = fc
  .tuple(urlTextArb, fc.array(fragmentPartArb, { maxLength: 4 }))
  .map(([u, parts]) => `${u.split('#')[0]}#${parts.join('&')}`);

const signalUrls: FuzzTarget = {
  name: 'signal URLs (parseSignalUrl)',
  quickRuns: 1000,
  run: (budget) =>
    check(
      'signal URLs (parseSignalUrl)',
      fc.property(
        fc.oneof(
          urlTextArb,
          fc.tuple(urlTextArb, editsArb).map(([u, e]) => applyEdits(u, e)),
          addressTextArb,
          fc.tuple(addressTextArb, editsArb).map(([u, e]) => applyEdits(u, e)),
        ),
        (text) => {
          let url: string;
          try {
            url = parseSignalUrl(text, '--signal');
          } catch (err) {
            if (!isPapoError(err, 'invalid_signal_url')) throw err;
            // An error never repeats a token the address carried.
            for (const secret of text.match(/SECRET[A-Za-z0-9._~+/=-]{16,}/g) ?? [])
              if (err.message.includes(secret)) throw new Error('an error repeats the token');
            return true;
          }
          // The split parts go back together into the same text; the URL alone has no fragment.
          const address = parseSignalAddress(url, 'invite');
          if (formatSignalAddress(address) !== url) throw new Error('format(parse(address)) differs');
          if (address.url.includes('#') || signalUrlOf(url) !== address.url)
            throw new Error('the URL of an address keeps a fragment');
          if (Buffer.byteLength(url) > MAX_SIGNAL_URL_BYTES) throw new Error('a URL longer than 255 bytes');
          if (parseSignalUrl(url, 'invite') !== url) throw new Error('parseSignalUrl is not idempotent');
          // What a room carries must be usable by everything that reads it later.
          signalOrigin(url);
          tokenMayTravel(url);
          isLoopbackSignalUrl(url);
          return true;
        },
      ),
      budget,
    ),
};

const tokenArb = fc.stringMatching(/^[A-Za-z0-9_-]{12,24}$/).map((t) => `TOK${t}`);
const signalTokens: FuzzTarget = {
  name: 'PAPO_SIGNAL_TOKEN (signal-token.ts)',
  quickRuns: 1000,
  run: (budget) =>
    check(
      'PAPO_SIGNAL_TOKEN (signal-token.ts)',
      fc.property(
        fc.array(
          fc.oneof(
            fc.tuple(urlTextArb, tokenArb).map(([o, t]) => ({ text: `${o}=${t}`, token: t })),
            tokenArb.map((t) => ({ text: t, token: t })),
            anyText.map((t) => ({ text: t, token: null })),
          ),
          { maxLength: 4 },
        ),
        fc.constantFrom(' ', ',', ', ', '\n'),
        fc.option(urlTextArb),
        fc.oneof(
          fc.constantFrom('wss://signal.example.org', 'ws://127.0.0.1:7450', 'ws://203.0.113.1:7450'),
          urlTextArb,
        ),
        (entries, sep, pinned, room) => {
          let roomUrl: string;
          try {
            roomUrl = parseSignalUrl(room, 'invite');
          } catch {
            return true;
          }
          const env: NodeJS.ProcessEnv = { PAPO_SIGNAL_TOKEN: entries.map((e) => e.text).join(sep) };
          if (pinned !== null) env.PAPO_SIGNAL = pinned;
          const tokens = entries.map((e) => e.token).filter((t): t is string => t !== null);
          try {
            parseSignalTokens(env.PAPO_SIGNAL_TOKEN);
            const token = signalTokenFor(roomUrl, env);
            // A token goes over TLS, or in clear to this machine only.
            if (token !== undefined && !tokenMayTravel(roomUrl))
              throw new Error(`a token would travel in clear to ${roomUrl}`);
          } catch (err) {
            if (!isPapoError(err, 'invalid_signal_token')) throw err;
            // Errors name origins, never tokens.
            for (const t of tokens)
              if (err.message.includes(t)) throw new Error(`an error shows a token: ${err.message}`);
          }
          return true;
        },
      ),
      budget,
    ),
};

// ---------- ICE servers from the environment and the welcome ----------

const iceUrlArb = fc.oneof(
  fc
    .tuple(
      fc.constantFrom('stun', 'turn', 'turns', 'stuns', 'TURN', 'http'),
      fc.oneof(
        fc.domain(),
        fc.ipV4(),
        fc.ipV6().map((h) => `[${h}]`),
        fc.string({ maxLength: 10 }),
      ),
      fc.option(fc.integer({ min: -1, max: 99999 })),
      fc.option(
        fc.constantFrom('?transport=udp', '?transport=tcp', '?transport=TCP', '?transport=sctp', '?x'),
      ),
    )
    .map(([s, h, p, q]) => `${s}:${h}${p === null ? '' : `:${p}`}${q ?? ''}`),
  fc.string({ maxLength: 40 }),
);
const iceTextArb = fc.oneof(
  fc
    .array(
      fc.record(
        {
          urls: fc.oneof(iceUrlArb, fc.array(iceUrlArb, { maxLength: 3 }), hostileJson),
          username: fc.oneof(fc.string({ maxLength: 20 }), hostileJson),
          credential: fc.oneof(fc.string({ maxLength: 20 }), hostileJson),
        },
        { requiredKeys: [] },
      ),
      { maxLength: 4 },
    )
    .map((v) => JSON.stringify(v)),
  jsonTextArb,
  anyText,
);

const iceConfig: FuzzTarget = {
  name: 'ICE servers (PAPO_ICE_SERVERS, welcome)',
  quickRuns: 1000,
  run: (budget) =>
    check(
      'ICE servers (PAPO_ICE_SERVERS, welcome)',
      fc.property(
        fc.oneof(
          iceTextArb,
          fc.tuple(iceTextArb, editsArb).map(([t, e]) => applyEdits(t, e)),
        ),
        fc.oneof(fc.constantFrom('', 'relay', 'all', ' RELAY '), fc.string({ maxLength: 8 })),
        (text, policy) => {
          try {
            const ice = resolveIceConfig({ env: { PAPO_ICE_SERVERS: text, PAPO_ICE_POLICY: policy } });
            // Round trip: what was accepted validates again to the same servers.
            if (
              ice.source === 'env' &&
              JSON.stringify(parseIceServers(JSON.stringify(ice.servers))) !== JSON.stringify(ice.servers)
            )
              throw new Error('ICE servers do not survive a round trip');
            for (const s of toNativeIceServers(ice.servers)) {
              if (!Number.isInteger(s.port) || (s.port as number) < 1 || (s.port as number) > 65535)
                throw new Error(`port out of range: ${s.port}`);
              if (s.hostname === '' || /[\s[\]]/.test(s.hostname)) throw new Error(`bad host ${s.hostname}`);
            }
          } catch (err) {
            if (!isPapoError(err, 'invalid_ice_servers')) throw err;
          }
          // The welcome's copy, which any signal server sends.
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = text;
          }
          const servers = validateIceServers(parsed);
          if (servers !== undefined) for (const s of servers) for (const u of [s.urls].flat()) parseIceUrl(u);
          assertNoPollution();
          return true;
        },
      ),
      budget,
    ),
};

// ---------- JSON-RPC line splitting (json-lines.ts readLines, the server's reading) ----------

const lineSplit: FuzzTarget = {
  name: 'JSON-RPC line splitting (json-lines.ts)',
  quickRuns: 300,
  run: (budget) =>
    check(
      'JSON-RPC line splitting (json-lines.ts)',
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.string({ unit: 'grapheme', maxLength: 30 }),
            fc.string({ unit: 'binary', maxLength: 20 }),
            anyText,
          ),
          { maxLength: 6 },
        ),
        fc.array(fc.constantFrom('\n', '\r\n'), { minLength: 6, maxLength: 6 }),
        fc.boolean(),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (texts, ends, lastEnds, cuts) => {
          const clean = texts.map((t) => t.replace(/[\r\n]/g, ' '));
          const input = clean
            .map((t, i) => (i < clean.length - 1 || lastEnds ? `${t}${ends[i]}` : t))
            .join('');
          const expected = clean
            .filter((t, i) => (i < clean.length - 1 || lastEnds ? t.trim() !== '' : t.trim() !== ''))
            .map((t, i, all) =>
              i === all.length - 1 && !lastEnds && t === clean[clean.length - 1] ? t.trim() : t,
            );
          // Cut the bytes anywhere, in the middle of a character too.
          const bytes = Buffer.from(input, 'utf8');
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const stream = new PassThrough();
          const got: string[] = [];
          const ended = new Promise<void>((resolve) => readLines(stream, (l) => got.push(l), resolve));
          let at = 0;
          for (const p of [...points, bytes.length]) {
            if (p > at) stream.write(bytes.subarray(at, p));
            at = Math.max(at, p);
          }
          stream.end();
          await ended;
          if (JSON.stringify(got) !== JSON.stringify(expected))
            throw new Error(`lines ${JSON.stringify(got)} instead of ${JSON.stringify(expected)}`);
          return true;
        },
      ),
      budget,
    ),
};

// ---------- tool arguments ----------

const argValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ minLength: 2000, maxLength: 3000 }),
  fc.integer({ min: -5, max: 4000 }),
  fc.double(),
  hostileJson,
);
const validArgs: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  send: fc.record(
    {
      message: fc.string({ minLength: 1, maxLength: 200 }).filter((s) => s.trim() !== ''),
      to: fc.stringMatching(/^[A-Za-z0-9._-]{1,32}$/),
      reply_to: fc.stringMatching(/^[0-9a-f]{10}$/),
    },
    { requiredKeys: ['message'] },
  ),
  wait: fc.record(
    { timeout_seconds: fc.integer({ min: 1, max: 60 }), from: fc.stringMatching(/^[A-Za-z0-9._-]{1,32}$/) },
    { requiredKeys: [] },
  ),
  inbox: fc.constant({}),
  history: fc.record({ limit: fc.integer({ min: 1, max: 50 }) }, { requiredKeys: [] }),
  status: fc.constant({}),
};

const toolArgs: FuzzTarget = {
  name: 'tool arguments (tool-args.ts, tools.ts)',
  quickRuns: 500,
  run: (budget) => {
    const handlers = createToolHandlers({
      member: () => Promise.reject(new MemberUnavailable('no member in the fuzz')),
      sendWindow: createSendWindow(1_000_000_000),
      ackTimeoutMs: 10,
      progressIntervalMs: 1000,
      channel: new ChannelPush(() => {}),
    });
    const tools = Object.keys(TOOL_ARGUMENTS) as (keyof typeof TOOL_ARGUMENTS)[];
    return check(
      'tool arguments (tool-args.ts, tools.ts)',
      fc.asyncProperty(
        fc.constantFrom(...tools).chain((tool) =>
          fc.oneof(
            fc.record({
              tool: fc.constant(tool),
              valid: fc.constant(true),
              args: validArgs[tool] as fc.Arbitrary<Record<string, unknown>>,
            }),
            fc.record({
              tool: fc.constant(tool),
              valid: fc.constant(false),
              args: fc.dictionary(
                fc.oneof(
                  fc.constantFrom(...TOOL_ARGUMENTS[tool], 'wait_for_previous', 'x', 'body'),
                  hostileKey,
                ),
                argValue,
                { maxKeys: 4 },
              ),
            }),
          ),
        ),
        async ({ tool, valid, args }) => {
          const signal = new AbortController().signal;
          try {
            const result = await handlers[tool](args, { signal, progress: null });
            // Without a member only a refusal of the text itself (a credential in it) answers.
            if (!result.isError) throw new Error(`${tool} answered without a member`);
          } catch (err) {
            if (err instanceof ArgumentError) {
              if (valid) throw new Error(`valid arguments refused: ${err.message}`);
              if (err.message.length > 1000)
                throw new Error(`an argument error of ${err.message.length} characters`);
            } else if (!(err instanceof MemberUnavailable)) throw err;
          }
          assertNoPollution();
          return true;
        },
      ),
      budget,
    );
  },
};

// ---------- STUN/TURN messages ----------

const MAGIC = 0x2112a442;
function stunAttr(type: number, value: Uint8Array): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(type, 0);
  head.writeUInt16BE(value.length, 2);
  return Buffer.concat([head, value, Buffer.alloc((4 - (value.length % 4)) % 4)]);
}
function stunMessage(type: number, attrs: Buffer[], tid: Buffer): Buffer {
  const body = Buffer.concat(attrs);
  const header = Buffer.alloc(20);
  header.writeUInt16BE(type, 0);
  header.writeUInt16BE(body.length, 2);
  header.writeUInt32BE(MAGIC, 4);
  tid.copy(header, 8);
  return Buffer.concat([header, body]);
}
function xorV4(ip: number[], port: number): Buffer {
  const v = Buffer.alloc(8);
  v[1] = 1;
  v.writeUInt16BE(port ^ (MAGIC >>> 16), 2);
  v.writeUInt32BE((Buffer.from(ip).readUInt32BE(0) ^ MAGIC) >>> 0, 4);
  return v;
}
const ipv4Arb = fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 });
const stunAttrArb = fc.oneof(
  fc.record({
    // ... and what the TURN helpers' gate reads: USERNAME, MESSAGE-INTEGRITY(-SHA256),
    // PASSWORD-ALGORITHM, USERHASH (turn-gate.ts).
    type: fc.constantFrom(
      0x0001,
      0x0006,
      0x0008,
      0x0009,
      0x0014,
      0x0015,
      0x0016,
      0x001c,
      0x001d,
      0x001e,
      0x0020,
      0x8022,
    ),
    value: fc.uint8Array({ maxLength: 40 }),
  }),
  fc
    .tuple(ipv4Arb, fc.integer({ min: 0, max: 65535 }), fc.constantFrom(0x0016, 0x0020))
    .map(([ip, port, type]) => ({ type, value: new Uint8Array(xorV4(ip, port)) })),
  fc.record({ type: fc.integer({ min: 0, max: 0xffff }), value: fc.uint8Array({ maxLength: 20 }) }),
);
const stunArb = fc
  .record({
    type: fc.oneof(
      fc.constantFrom(0x0101, 0x0103, 0x0113, 0x0104, 0x0114),
      fc.integer({ min: 0, max: 0x3fff }),
    ),
    attrs: fc.array(stunAttrArb, { maxLength: 5 }),
    tid: fc.uint8Array({ minLength: 12, maxLength: 12 }),
    flips: flipsArb,
    cut: fc.option(fc.nat()),
    lie: fc.option(fc.integer({ min: 0, max: 0xffff })),
  })
  .map(({ type, attrs, tid, flips, cut, lie }) => {
    const m = stunMessage(
      type,
      attrs.map((a) => stunAttr(a.type, a.value)),
      Buffer.from(tid),
    );
    if (lie !== null) m.writeUInt16BE(lie, 2); // a header that lies about the length
    const edited = Buffer.from(byteEdits(m, flips, cut));
    return edited;
  });
const IPV4_PORT = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3}):(\d{1,5})$/;
function checkAddress(a: string | undefined): void {
  if (a === undefined) return;
  const m = IPV4_PORT.exec(a);
  if (m !== null) {
    if (m.slice(1, 5).some((o) => Number(o) > 255) || Number(m[5]) > 65535)
      throw new Error(`bad address ${a}`);
    return;
  }
  if (!/^\[[0-9a-f]{1,4}(:[0-9a-f]{1,4}){7}\]:\d{1,5}$/.test(a)) throw new Error(`bad address ${a}`);
}

const stun: FuzzTarget = {
  name: 'STUN/TURN messages (turn-release, turn-probe, TCP framing)',
  quickRuns: 1000,
  run: (budget) =>
    check(
      'STUN/TURN messages (turn-release, turn-probe, TCP framing)',
      fc.asyncProperty(
        fc.oneof(
          stunArb.map((b) => ({ bytes: b, relayed: null as string | null })),
          fc
            .uint8Array({ maxLength: 80 })
            .map((b) => ({ bytes: Buffer.from(b), relayed: null as string | null })),
          // a well-formed Allocate success: the relayed address must come back as given
          fc
            .tuple(ipv4Arb, fc.integer({ min: 0, max: 65535 }), fc.array(stunAttrArb, { maxLength: 2 }))
            .map(([ip, port, extra]) => ({
              bytes: stunMessage(
                0x0103,
                [
                  ...extra.filter((a) => a.type !== 0x0016).map((a) => stunAttr(a.type, a.value)),
                  stunAttr(0x0016, xorV4(ip, port)),
                ],
                randomBytes(12),
              ),
              relayed: `${ip.join('.')}:${port}`,
            })),
        ),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.string({ maxLength: 120 }),
        async ({ bytes, relayed }, cuts, candidate) => {
          const got = allocatedAddress(bytes);
          checkAddress(got);
          if (relayed !== null && got !== relayed) throw new Error(`relayed ${got} instead of ${relayed}`);
          if (bytes.length >= 20 && bytes.readUInt32BE(4) === MAGIC && (bytes[0] ?? 0) < 0x40) {
            checkAddress(mappedOf(bytes));
            const e = errorOf(bytes);
            if (
              e !== undefined &&
              (e.reason.length > 80 || /[^\x20-\x7e]/.test(e.reason) || e.code < 0 || e.code > 955)
            )
              throw new Error(`error attribute read as ${JSON.stringify(e)}`);
            // The answer to a Refresh: giveBack resolves true or false whatever it is.
            let answered = 0;
            const r = await giveBack(async () => (answered++ < 3 ? bytes : undefined), {
              username: 'u',
              realm: 'r',
              nonce: 'n',
              key: Buffer.alloc(16),
            });
            if (typeof r !== 'boolean') throw new Error('giveBack did not resolve to a boolean');
          }
          checkAddress(addressOf(bytes.subarray(Math.min(20, bytes.length)), true, Buffer.alloc(12)));
          // The gate of the loopback helpers reads whatever any local user sends: it decides, and
          // what it answers is a 401 to the same transaction.
          const gate = new TurnGate();
          gate.remember('u', 'p');
          gate.heard(bytes);
          const admitted = gate.admit(bytes);
          if (typeof admitted === 'object') {
            const a = admitted.answer;
            if (
              a.readUInt16BE(0) !== (bytes.readUInt16BE(0) | 0x0110) ||
              !a.subarray(8, 20).equals(bytes.subarray(8, 20))
            )
              throw new Error('the gate answered another transaction');
          } else if (!['open', 'drop', 'ask the realm'].includes(admitted))
            throw new Error(`the gate said ${String(admitted)}`);
          // TCP framing: what nextFrame takes is inside the buffer, and a stream of frames cut
          // anywhere reads back as the same frames.
          const f = nextFrame(bytes);
          if (
            f !== null &&
            f !== 'bad' &&
            (f.length > f.consumed || f.consumed > bytes.length || f.length < 4)
          )
            throw new Error(`nextFrame read ${JSON.stringify(f)} from ${bytes.length} bytes`);
          if (f !== null && f !== 'bad') {
            const one = bytes.subarray(0, f.consumed);
            const stream = Buffer.concat([one, one, one]);
            let pending = Buffer.alloc(0);
            const frames: Buffer[] = [];
            const points = [...new Set(cuts.map((c) => c % (stream.length + 1))), stream.length].sort(
              (a, b) => a - b,
            );
            let at = 0;
            for (const p of points) {
              pending = Buffer.concat([pending, stream.subarray(at, p)]);
              at = Math.max(at, p);
              for (;;) {
                const next = nextFrame(pending);
                if (next === null) break;
                if (next === 'bad') throw new Error('a stream of good frames read as bad');
                frames.push(pending.subarray(0, next.length));
                pending = pending.subarray(next.consumed);
              }
            }
            if (frames.length !== 3 || frames.some((x) => !x.equals(bytes.subarray(0, f.length))))
              throw new Error('a stream of frames did not read back');
          }
          const r = relayedAddressOf(candidate);
          if (r !== undefined && (r.length > candidate.length || /\s/.test(r)))
            throw new Error(`candidate read as ${r}`);
          return true;
        },
      ),
      budget,
    ),
};

// ---------- inert text ----------

const DANGEROUS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u;
const inert: FuzzTarget = {
  name: 'inert text (inert-text.ts)',
  quickRuns: 1500,
  run: (budget) =>
    check(
      'inert text (inert-text.ts)',
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 200 }),
          fc.string({ unit: 'grapheme', maxLength: 100 }),
          fc
            .array(
              fc.oneof(
                fc.constantFrom(
                  '\x1b]52;c;',
                  '\x1b[2J',
                  '\u202e',
                  '\u2066',
                  '\r',
                  '\r\n',
                  '\n',
                  '\t',
                  '\u200d',
                  '\u200c',
                  '\ufe0f',
                  '\u{e0041}',
                  '\u{1f3f4}',
                  '\u{e0067}\u{e0062}',
                  '\u{e007f}',
                  '\ud800',
                  '\udc00',
                  '\u0085',
                  '\u009b',
                  '\u2028',
                  'a',
                  'é',
                  '👩',
                ),
                fc.string({ maxLength: 3 }),
              ),
              { maxLength: 30 },
            )
            .map((a) => a.join('')),
        ),
        (text) => {
          for (const shape of ['block', 'line'] as const) {
            const out = inertText(text, shape);
            // Each escape is at most 10 characters for one code point (`\u{e0041}`).
            if (out.length > text.length * 10) throw new Error('unbounded output');
            if (inertText(out, shape) !== out) throw new Error('escaping twice changes the text');
            for (const ch of out) {
              const cp = ch.codePointAt(0) as number;
              if (shape === 'block' && (cp === 0x0a || cp === 0x09)) continue;
              if (cp === 0x200d || cp === 0x200c) continue;
              // Tag characters are kept only inside a subdivision flag.
              if (
                cp >= 0xe0000 &&
                cp <= 0xe007f &&
                /\u{1F3F4}[\u{E0030}-\u{E0039}\u{E0061}-\u{E007A}]{1,7}\u{E007F}/u.test(out)
              )
                continue;
              if (DANGEROUS.test(ch)) throw new Error(`U+${cp.toString(16)} left in ${JSON.stringify(out)}`);
            }
          }
          return true;
        },
      ),
      budget,
    ),
};

// ---------- the profile's files read back ----------

function fileArb(valid: string): fc.Arbitrary<string | null> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.constant(valid) },
    { weight: 1, arbitrary: fc.constant(null) },
    { weight: 2, arbitrary: editsArb.map((e) => applyEdits(valid, e)) },
    { weight: 2, arbitrary: jsonTextArb },
    { weight: 1, arbitrary: anyText },
  );
}

const profileFiles: FuzzTarget = {
  name: 'profile files read back (profile.json, peers.json, names.json, ...)',
  quickRuns: 100,
  run: async (budget) => {
    const base = existsShm() ? mkdtempSync('/dev/shm/papo-fuzz-') : mkdtempSync(join(tmpdir(), 'papo-fuzz-'));
    const home = base;
    const dir = join(home, 'profiles', 'fuzz');
    const node = randomBytes(32).toString('hex');
    const envelope = {
      id: '3f9a1c07b2',
      from: 'ana',
      node,
      kind: 'agent',
      ts: 1_780_000_000_000,
      body: 'oi',
    };
    const valid = {
      profile: JSON.stringify({ name: 'ana', secret: randomBytes(32).toString('hex'), createdAt: 1 }),
      secret: `${randomBytes(32).toString('hex')}\n`,
      peers: JSON.stringify({ [node]: { name: 'ana', kind: 'agent', lastSeen: 1 } }),
      names: JSON.stringify({ 'ana (agent)': { node, spoke: true }, 'ana (human)': node }),
      outbox: JSON.stringify([{ id: '3f9a1c07b2', owed: ['bia'], frame: 'x', sentAt: 1 }]),
      inbox: JSON.stringify(envelope),
      log: `${JSON.stringify({ ev: 'in', msg: envelope })}\n${JSON.stringify({ ev: 'delivered', id: '3f9a1c07b2', by: 'bia', ts: 1 })}\n`,
    };
    try {
      return await check(
        'profile files read back (profile.json, peers.json, names.json, ...)',
        fc.asyncProperty(
          fc.record({
            profile: fileArb(valid.profile),
            secret: fileArb(valid.secret),
            peers: fileArb(valid.peers),
            names: fileArb(valid.names),
            outbox: fileArb(valid.outbox),
            inbox: fileArb(valid.inbox),
            log: fc.oneof(
              fileArb(valid.log),
              fc.array(jsonTextArb, { maxLength: 4 }).map((l) => l.join('\n')),
            ),
          }),
          async (files) => {
            rmSync(dir, { recursive: true, force: true });
            mkdirSync(join(dir, INBOX_DIR), { recursive: true, mode: 0o700 });
            const put = (name: string, text: string | null) => {
              if (text !== null) writeFileSync(join(dir, name), text, { mode: 0o600 });
            };
            put(PROFILE_FILE, files.profile);
            put(SECRET_KEY_FILE, files.secret);
            put(PEERS_FILE, files.peers);
            put(NAMES_FILE, files.names);
            put(OUTBOX_FILE, files.outbox);
            put(join(INBOX_DIR, '0000000001-3f9a1c07b2.json'), files.inbox);
            put(LOG_FILE, files.log);
            const corrupt = (err: unknown) => {
              if (!isPapoError(err, 'profile_corrupt') && !isPapoError(err, 'profile_missing')) throw err;
            };
            try {
              const profile = await openProfile({ home, profile: 'fuzz' });
              if (!/^[0-9a-f]{64}$/.test(Buffer.from(profile.secret).toString('hex')))
                throw new Error('bad secret');
            } catch (err) {
              corrupt(err);
            }
            try {
              const state = await openMemberState(dir);
              const names = new KnownNames(state.names);
              names.holder('ana', 'agent');
              names.claim('bia', 'agent', node);
              names.saved();
              // What the history tool and `papo log` do with the log's lines.
              for (const e of await state.readLogTail(50)) formatLogEntry(e, 'ana');
              await state.recoverInboundIds();
              for (const m of state.inbox)
                if (typeof m.id !== 'string') throw new Error('inbox entry without id');
            } catch (err) {
              corrupt(err);
            }
            assertNoPollution();
            return true;
          },
        ),
        budget,
      );
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  },
};

function existsShm(): boolean {
  try {
    const d = mkdtempSync('/dev/shm/papo-probe-');
    rmSync(d, { recursive: true });
    return true;
  } catch {
    return false;
  }
}

// ---------- the profile's files, each reader alone (pure, in-process) ----------

const nodeHex = randomBytes(32).toString('hex');
const validEnvelope = {
  id: '3f9a1c07b2',
  from: 'ana',
  node: nodeHex,
  kind: 'agent',
  to: 'bia',
  reply_to: '81d4e0aa6c',
  ts: 1_780_000_000_000,
  body: 'oi\nlinha 2',
};
/** A field's value: one that fits it, or any JSON (hostile keys and `toString`s included). */
const fieldArb = (...fitting: unknown[]) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...fitting) },
    { weight: 1, arbitrary: hostileJson },
    { weight: 1, arbitrary: fc.constantFrom({ toString: 1 }, { valueOf: [] }, '', -1, 1e300, null) },
  );
/** An object of this shape: each key present or not, each value fitting or not. */
const shapeArb = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc.record({ ...fields, x: hostileJson }, { requiredKeys: [] });
const envelopeFieldArbs = {
  id: fieldArb('3f9a1c07b2', '0000000000', '../../x', '3F9A1C07B2'),
  from: fieldArb('ana', 'bia', 'a b', '__proto__'),
  node: fieldArb(nodeHex, 'a'.repeat(64), 'zz'),
  kind: fieldArb('agent', 'human', 'robot'),
  to: fieldArb('bia', 'ana', undefined),
  reply_to: fieldArb('81d4e0aa6c', undefined),
  ts: fieldArb(1_780_000_000_000, 0, 1.5),
  body: fieldArb('oi', 'a\u202eb', 'x'.repeat(300)),
  sig: fieldArb(undefined, 'ab', 'a'.repeat(128)),
};
const envelopeShapeArb = shapeArb(envelopeFieldArbs);
/** A file's text: the valid one, damaged, of its shape with values of any type, any JSON, garbage. */
const textOf = (valid: string, shaped: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 2, arbitrary: fc.constant(valid) },
    { weight: 2, arbitrary: editsArb.map((e) => applyEdits(valid, e)) },
    { weight: 4, arbitrary: shaped.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: jsonTextArb },
    { weight: 1, arbitrary: anyText },
  );

/** The file's JSON, or the PapoError the reader gives for text that is not JSON. */
function jsonOf(text: string, path: string): unknown {
  return parseJsonText<unknown>(text, path);
}

/** Runs a reader: its value, or undefined for its own PapoError 'profile_corrupt'. */
function readOrCorrupt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch (err) {
    if (!isPapoError(err, 'profile_corrupt')) throw err;
    if (!err.message.includes('/fuzz/')) throw new Error(`an error that names no file: ${err.message}`);
    return undefined;
  }
}

function assertEnvelope(m: Envelope, what: string): void {
  // What a reader accepts goes out again as a msg frame (re-sent, forwarded): it must decode to itself.
  const again = decodeFrame(encodeFrame(msgFrame(m)));
  if (JSON.stringify(envelopeOf(again as MsgFrame)) !== JSON.stringify(m))
    throw new Error(
      `${what}: an envelope that does not survive encode/decode: ${JSON.stringify(m).slice(0, 200)}`,
    );
  formatLogEntry({ ev: 'in', msg: m }, 'ana');
}

const profileReaders: FuzzTarget = {
  name: 'profile files, each reader (profile.json, peers.json, review.json, ...)',
  quickRuns: 500,
  run: async (budget) => {
    const dir = mkdtempSync(join(existsShm() ? '/dev/shm' : tmpdir(), 'papo-fuzz-review-'));
    const at = (file: string) => `/home/x/.papo/profiles/fuzz/${file}`;
    const key = 'b'.repeat(64);
    const validReview = {
      on: true,
      allow: [{ name: 'bia', agent: key, human: key }],
      people: [{ name: 'ana', key }],
      hold: ['deploy', '^rm\\b'],
    };
    const allowEntry = fieldArb(
      'bia',
      'a b',
      '',
      { name: 'bia', agent: key },
      { name: 'ana', human: key.toUpperCase() },
      { name: 'a b', agent: key },
      { agent: key },
    );
    const reviewShape = shapeArb({
      on: fieldArb(true, false),
      allow: fc.oneof(fc.array(allowEntry, { maxLength: 4 }), hostileJson),
      // An older papo's switch: read, and bound to nobody.
      allow_people: fieldArb(true, false),
      people: fc.oneof(
        fc.array(fieldArb({ name: 'ana', key }, { name: 'ana' }, { name: 'a b', key }, 'ana'), {
          maxLength: 4,
        }),
        hostileJson,
      ),
      hold: fc.oneof(
        fc.array(fieldArb('deploy', '(a+)+', '(\\w*){2,}', '[', '', 'x'.repeat(201), '\\p{L}'), {
          maxLength: 4,
        }),
        hostileJson,
      ),
    });
    writeFileSync(join(dir, 'elsewhere.json'), JSON.stringify({ on: false }));
    const ids = fc.array(fieldArb('3f9a1c07b2', '81d4e0aa6c', 'XYZ'), { maxLength: 4 });
    const decisionShape = shapeArb({
      approve: fc.oneof(fieldArb('all', 'ALL'), ids),
      reject: fc.oneof(ids, hostileJson),
      reason: fieldArb('não', ''),
    });
    const peerShape = fc.dictionary(
      fc.oneof(fc.constantFrom(nodeHex, 'a'.repeat(64), '__proto__', 'x'), hex64),
      fc.oneof(
        shapeArb({
          name: fieldArb('ana', 'bia', 'a b'),
          kind: fieldArb('agent', 'human'),
          lastSeen: fieldArb(1, 0),
          about: fieldArb('x', undefined),
          review: fieldArb(true, undefined, false),
        }),
        hostileJson,
      ),
      { maxKeys: 4 },
    );
    const logLineShape = fc.oneof(
      shapeArb({
        ev: fieldArb('in', 'out'),
        msg: fc.oneof(envelopeShapeArb, hostileJson),
        held: fieldArb(true),
      }),
      shapeArb({
        ev: fieldArb('delivered', 'review', 'impostor'),
        id: fieldArb('3f9a1c07b2'),
        by: fieldArb('bia'),
        ts: fieldArb(1, 0),
        decision: fieldArb('approved', 'rejected'),
        reason: fieldArb('no'),
        name: fieldArb('ana'),
        kind: fieldArb('agent', 'human'),
        node: fieldArb(nodeHex),
      }),
    );
    const filesArb = fc.record({
      profile: textOf(
        JSON.stringify({ name: 'ana', secret: 'ab'.repeat(32), signalUrl: 'wss://s.example', createdAt: 1 }),
        shapeArb({
          name: fieldArb('ana', 'a b', ''),
          secret: fieldArb('ab'.repeat(32), 'AB'.repeat(32), 'ab'),
          about: fieldArb('x', ''),
          signalUrl: fieldArb('wss://s.example', ''),
          createdAt: fieldArb(1, -1),
        }),
      ),
      key: fc.oneof(
        fc.constant(`${'cd'.repeat(32)}\n`),
        editsArb.map((e) => applyEdits(`${'cd'.repeat(32)}\n`, e)),
        anyText,
      ),
      peers: textOf(JSON.stringify({ [nodeHex]: { name: 'bia', kind: 'agent', lastSeen: 1 } }), peerShape),
      names: textOf(
        JSON.stringify({ 'bia (agent)': nodeHex }),
        fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), hostileKey), fieldArb(nodeHex), { maxKeys: 4 }),
      ),
      outbox: textOf(
        JSON.stringify([{ ...validEnvelope, owed: ['bia'] }]),
        fc.array(
          fc.oneof(
            shapeArb({
              ...envelopeFieldArbs,
              owed: fc.oneof(fc.array(fieldArb('bia', 'a b'), { maxLength: 3 }), hostileJson),
            }),
            hostileJson,
          ),
          { maxLength: 3 },
        ),
      ),
      stored: textOf(JSON.stringify(validEnvelope), envelopeShapeArb),
      legacy: textOf(
        JSON.stringify([validEnvelope]),
        fc.array(fc.oneof(envelopeShapeArb, hostileJson), { maxLength: 3 }),
      ),
      log: fc.array(textOf(JSON.stringify({ ev: 'in', msg: validEnvelope }), logLineShape), { maxLength: 4 }),
      // review.json: text, any bytes (not UTF-8 too), absent, or not a plain file (a folder, a link)
      review: fc.oneof(
        { weight: 8, arbitrary: textOf(JSON.stringify(validReview), reviewShape) },
        { weight: 1, arbitrary: fc.uint8Array({ maxLength: 200 }) },
        { weight: 1, arbitrary: fc.constantFrom(null, 'folder' as const, 'link' as const) },
      ),
      decision: textOf(JSON.stringify({ approve: ['3f9a1c07b2'], reject: [], reason: 'x' }), decisionShape),
    });
    try {
      return await check(
        'profile files, each reader (profile.json, peers.json, review.json, ...)',
        fc.property(filesArb, (f) => {
          // profile.json
          const profile = readOrCorrupt(() => parseProfileFile(jsonOf(f.profile, at(PROFILE_FILE))));
          if (profile) {
            if (
              !isMemberName(profile.name) ||
              !/^[0-9a-f]{64}$/.test(profile.secret) ||
              typeof profile.createdAt !== 'number'
            )
              throw new Error(`profile.json accepted as ${JSON.stringify(profile)}`);
            if (
              JSON.stringify(parseProfileFile(JSON.parse(JSON.stringify(profile)))) !==
              JSON.stringify(profile)
            )
              throw new Error('profile.json does not read back to itself');
          }
          // secret.key
          const key = readOrCorrupt(() => parseKeyText(f.key, at(SECRET_KEY_FILE)));
          if (key !== undefined && key.length !== 32) throw new Error('a key that is not 32 bytes');
          // peers.json: what presence, `papo status` and `papo forget` do with it
          const peers = readOrCorrupt(() => parsePeersFile(jsonOf(f.peers, at(PEERS_FILE)), at(PEERS_FILE)));
          if (peers) {
            const records = Object.entries(peers);
            records.sort(([, a], [, b]) => a.name.localeCompare(b.name) || a.lastSeen - b.lastSeen);
            for (const [node, p] of records)
              if (!NODE_ID_PATTERN.test(node) || !isMemberName(p.name) || typeof p.lastSeen !== 'number')
                throw new Error(`peers.json accepted ${JSON.stringify(p)}`);
            forgetPeers({ ...peers }, 'bia');
          }
          // names.json
          const names = readOrCorrupt(() => parseNamesFile(jsonOf(f.names, at(NAMES_FILE)), at(NAMES_FILE)));
          if (names) {
            const known = new KnownNames(names);
            known.holder('bia', 'agent');
            known.claim('ana', 'human', nodeHex);
            const saved = Object.values(known.saved());
            if (saved.some((v) => typeof v.node !== 'string' || (v.spoke !== undefined && v.spoke !== true)))
              throw new Error(`names.json kept ${JSON.stringify(saved)}`);
          }
          // outbox.json: acks, status, forget, re-sending
          const outbox = readOrCorrupt(() =>
            parseOutboxFile(jsonOf(f.outbox, at(OUTBOX_FILE)), at(OUTBOX_FILE)),
          );
          if (outbox) {
            owedSummary(outbox);
            forgetInOutbox(outbox, 'bia');
            for (const q of outbox) {
              afterAck(q, 'bia');
              assertEnvelope(envelopeOfQueued(q), 'outbox.json');
            }
          }
          // a message file of inbox/ or held/, and papo 0.1's inbox.json
          const stored = readOrCorrupt(() =>
            parseStoredMessage(f.stored, at('inbox/0000000001-3f9a1c07b2.json')),
          );
          if (stored) assertEnvelope(stored, 'inbox/');
          const legacy = readOrCorrupt(() =>
            parseLegacyInbox(jsonOf(f.legacy, at('inbox.json')), at('inbox.json')),
          );
          for (const m of legacy ?? []) {
            if (!MESSAGE_ID_PATTERN.test(m.id)) throw new Error(`inbox.json accepted the id ${m.id}`);
            assertEnvelope(m, 'inbox.json');
          }
          // log.jsonl, formatted as `papo log` and the history tool do
          const entries = f.log.map(parseLogLine).filter((e): e is LogEntry => e !== null);
          for (const e of entries) formatLogEntry(e, 'ana', { note: 'held', body: false });
          reviewStates(entries);
          // review.json: fails closed, never throws
          const reviewFile = join(dir, REVIEW_FILE);
          rmSync(reviewFile, { force: true, recursive: true });
          if (f.review === 'folder') mkdirSync(reviewFile);
          else if (f.review === 'link') symlinkSync(join(dir, 'elsewhere.json'), reviewFile);
          else if (f.review !== null) writeFileSync(reviewFile, f.review);
          const settings = readReviewSettings(dir);
          // A link (here to a valid file) or a folder is not read: everything is held.
          if ((f.review === 'link' || f.review === 'folder') && settings.broken === undefined)
            throw new Error(`review.json as a ${f.review} read as ${JSON.stringify(settings)}`);
          if (settings.broken !== undefined) {
            if (
              settings.on !== true ||
              settings.allow.length > 0 ||
              settings.people.length > 0 ||
              settings.hold.length > 0
            )
              throw new Error(
                `a broken review.json that does not hold everything: ${JSON.stringify(settings)}`,
              );
          } else {
            if (
              typeof settings.on !== 'boolean' ||
              settings.allow.length > MAX_REVIEW_RULES ||
              !settings.allow.every(
                (m) =>
                  isMemberName(m.name) &&
                  [m.agent, m.human].every((k) => k === undefined || NODE_ID_PATTERN.test(k)),
              ) ||
              !settings.people.every((p) => isMemberName(p.name) && NODE_ID_PATTERN.test(p.key)) ||
              settings.hold.length > MAX_REVIEW_RULES
            )
              throw new Error(`review.json accepted as ${JSON.stringify(settings)}`);
            for (const p of settings.hold) compilePattern(p);
            if (f.review === null && settings.on) throw new Error('no review.json, yet review is on');
          }
          if (
            f.review === JSON.stringify(validReview) &&
            JSON.stringify(settings) !==
              JSON.stringify({
                on: true,
                allow: validReview.allow,
                people: validReview.people,
                hold: validReview.hold,
              })
          )
            throw new Error(`a valid review.json read as ${JSON.stringify(settings)}`);
          if (stored) holds(settings, stored);
          // a decision left by `papo review` (review-<8 hex>.json)
          let request: unknown;
          try {
            request = JSON.parse(f.decision);
          } catch {
            request = undefined;
          }
          const decision = parseDecision(request);
          if (decision !== null) {
            const idsOk = (l: unknown) => Array.isArray(l) && l.every((id) => MESSAGE_ID_PATTERN.test(id));
            if (
              (decision.approve !== 'all' && !idsOk(decision.approve)) ||
              !idsOk(decision.reject) ||
              (decision.reason !== undefined && typeof decision.reason !== 'string')
            )
              throw new Error(`a decision accepted as ${JSON.stringify(decision)}`);
          }
          assertNoPollution();
          return true;
        }),
        budget,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

// ---------- the signal server's TLS files ----------

const tlsFiles: FuzzTarget = {
  name: 'TLS certificate and key files (signal-server/tls.ts)',
  quickRuns: 100,
  run: async (budget) => {
    const dir = mkdtempSync(join(existsShm() ? '/dev/shm' : tmpdir(), 'papo-fuzz-tls-'));
    try {
      const ca = makeCa(dir);
      const leaf = issueLeaf(ca);
      const cert = leaf.cert.toString('latin1');
      const key = leaf.key.toString('latin1');
      const certFile = join(dir, 'fuzz-cert.pem');
      const keyFile = join(dir, 'fuzz-key.pem');
      const pemArb = (valid: string) =>
        fc.oneof(
          fc.constant(valid),
          editsArb.map((e) => applyEdits(valid, e)),
          // the base64 body damaged, the armour kept
          fc
            .tuple(flipsArb, fc.option(fc.nat()))
            .map(([f, c]) => Buffer.from(byteEdits(Buffer.from(valid, 'latin1'), f, c)).toString('latin1')),
          anyText,
          fc.constant(`${valid}${valid}`),
        );
      return await check(
        'TLS certificate and key files (signal-server/tls.ts)',
        fc.property(
          fc.oneof(pemArb(cert), fc.constant(key)),
          fc.oneof(pemArb(key), fc.constant(cert)),
          (c, k) => {
            writeFileSync(certFile, c, 'latin1');
            writeFileSync(keyFile, k, 'latin1');
            try {
              const pair = loadPair({ certFile, keyFile });
              if (typeof pair.serial !== 'string' || typeof pair.validTo !== 'string')
                throw new Error('bad pair');
            } catch (err) {
              if (!(err instanceof TlsFileError)) throw err;
              // The message names the files, never their contents.
              const inner = k.slice(40, 80);
              if (err.message.includes('PRIVATE KEY') || (inner.length >= 20 && err.message.includes(inner)))
                throw new Error(`the key leaks into ${err.message}`);
            }
            return true;
          },
        ),
        budget,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

// ---------- the TURN credential limiter ----------

const turnLimiter: FuzzTarget = {
  name: 'TURN credential limiter (turn-credentials.ts)',
  quickRuns: 1000,
  run: (budget) =>
    check(
      'TURN credential limiter (turn-credentials.ts)',
      fc.property(
        fc.integer({ min: 0, max: 4 }),
        fc.integer({ min: 1, max: 8 }),
        fc.array(
          fc.record({
            address: fc.oneof(
              fc.constantFrom('203.0.113.1', '203.0.113.2', '2001:db8::/64', '__proto__', ''),
              fc.string({ maxLength: 10 }),
            ),
            tag: fc.oneof(
              fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', '__proto__', ''),
              fc.string({ maxLength: 6 }),
            ),
            dt: fc.oneof(fc.integer({ min: 0, max: 2000 }), fc.constant(0)),
          }),
          { maxLength: 60 },
        ),
        (perAddress, maxAddresses, calls) => {
          const windowMs = 1000;
          const turn = {
            secret: 's',
            urls: ['turn:203.0.113.9'],
            stunUrls: ['stun:203.0.113.9'],
            ttlSeconds: 600,
            perAddress,
            windowMs,
          };
          const issuer = new TurnIssuer(turn as never, maxAddresses);
          // The model: per address, the tags given within the window (a tag given again renews).
          const given = new Map<string, Map<string, number>>();
          // Past its cap the limiter forgets the oldest address (bounded memory, by design): its
          // share starts over. The model holds only while no address can have been forgotten.
          const seen = new Set<string>();
          let now = 1_000_000;
          for (const c of calls) {
            now += c.dt;
            const w = issuer.forWelcome(c.address, c.tag, now);
            const ok = !w.notes.includes('turn_limited');
            if (issuer.trackedAddresses > maxAddresses)
              throw new Error('more addresses tracked than the cap');
            seen.add(c.address);
            if (perAddress === 0) {
              if (!ok) throw new Error('limited with no limit');
              continue;
            }
            if (seen.size > maxAddresses) continue;
            const tags = given.get(c.address) ?? new Map<string, number>();
            for (const [t, at] of tags) if (at <= now - windowMs) tags.delete(t);
            // A limiter that forgot an address (the cap) may give more, never less than the model.
            if (ok) {
              tags.set(c.tag, now);
              if (tags.size > perAddress)
                throw new Error(
                  `${c.address} was given ${tags.size} identities in a window of ${perAddress}`,
                );
            } else if (tags.size < perAddress && !tags.has(c.tag)) {
              throw new Error(`${c.address} limited below its share`);
            } else if (tags.has(c.tag)) {
              throw new Error(`a member redialling with its own tag was limited (${c.address})`);
            }
            given.set(c.address, tags);
            if (ok && w.iceServers.length === 0) throw new Error('no ICE servers given when allowed');
          }
          assertNoPollution();
          return true;
        },
      ),
      budget,
    ),
};

// ---------- agent clients' configuration files (papo doctor) ----------

const clientConfigs: FuzzTarget = {
  name: 'agent client config files (registration.ts, codex.ts TOML)',
  quickRuns: 200,
  run: async (budget) => {
    const dir = mkdtempSync(join(existsShm() ? '/dev/shm' : tmpdir(), 'papo-fuzz-cfg-'));
    const jsonFile = join(dir, 'settings.json');
    const toml = join(dir, 'config.toml');
    const validJson = JSON.stringify(
      { mcpServers: { papo: { command: 'papo', args: ['mcp', '--profile', 'x'] } } },
      null,
      2,
    );
    const validToml =
      '[mcp_servers.papo]\ncommand = "papo"\nargs = ["mcp", "--profile", "x"]\ntool_timeout_sec = 3600\n\n[other]\nx = 1\n';
    const tomlArb = fc.oneof(
      fc.constant(validToml),
      editsArb.map((e) => applyEdits(validToml, e)),
      fc
        .tuple(
          fc.constantFrom(
            '[mcp_servers.papo]',
            ' [ mcp_servers . "papo" ] # x',
            "[mcp_servers.'papo']",
            '[mcp_servers.papo.env]',
          ),
          fc.array(
            fc.tuple(
              fc.constantFrom('command', 'args', 'x'),
              fc.oneof(jsonTextArb, fc.string({ maxLength: 30 }), fc.constant(`[${'"a", '.repeat(400)}"b"]`)),
            ),
            { maxLength: 4 },
          ),
        )
        .map(
          ([h, lines]) => `${h}\n${lines.map(([k, v]) => `${k} = ${v.replace(/\n/g, ' ')}`).join('\n')}\n`,
        ),
      anyText,
    );
    try {
      return await check(
        'agent client config files (registration.ts, codex.ts TOML)',
        fc.asyncProperty(
          fc.oneof(
            fc.constant(validJson),
            editsArb.map((e) => applyEdits(validJson, e)),
            jsonTextArb,
            anyText,
          ),
          tomlArb,
          async (json, tomlText) => {
            writeFileSync(jsonFile, json);
            writeFileSync(toml, tomlText);
            const r = registrationIn(
              [{ scope: 'user', file: jsonFile, keys: ['mcpServers', 'papo'] }],
              commandLine,
            );
            if (r.detail.length > 300) throw new Error('registration detail unbounded');
            const c = await codex.registration?.({ env: { CODEX_HOME: dir, HOME: dir }, cwd: dir } as never);
            if (c === null || c === undefined) throw new Error('codex registration gave nothing');
            if (c.detail.length > 300)
              throw new Error(`codex registration detail of ${c.detail.length} characters`);
            assertNoPollution();
            return true;
          },
        ),
        budget,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};

export const PARSER_TARGETS: FuzzTarget[] = [
  serverParse,
  forwardedParse,
  clientSignal,
  clientSignalParse,
  signalUrls,
  signalTokens,
  iceConfig,
  lineSplit,
  toolArgs,
  stun,
  inert,
  profileFiles,
  profileReaders,
  tlsFiles,
  turnLimiter,
  clientConfigs,
];
