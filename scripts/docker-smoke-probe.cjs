// Probe for scripts/docker-smoke.sh, run with node inside a container of the papo image
// (NODE_PATH=/app/node_modules gives it `ws`). Two modes (ws:// or wss://):
//   welcome <ws-url>           prints the welcome, joins a topic, stays until the server closes the
//                              socket; exits 0 only on close code 1001 (going away: a clean stop).
//   turn <ws-url> <turn-port>  takes the TURN credential from the welcome and, on coturn at
//                              127.0.0.1:<turn-port>: allocates with it over UDP (must succeed)
//                              and with a tampered copy (must be refused with 401); asks
//                              CreatePermission for a private and a public peer (403, granted);
//                              over TCP, allocates a UDP relay (granted) and a TCP relay (RFC 6062,
//                              must be refused with 442).
'use strict';
const { createHash, createHmac, randomBytes } = require('node:crypto');
const { createSocket } = require('node:dgram');
const net = require('node:net');
const WebSocket = require('ws');

const [mode, url, turnPort] = process.argv.slice(2);

function fail(message) {
  console.log(`FAIL ${message}`);
  process.exit(1);
}

// PROBE_TOKEN (from the environment, not a command line): the server's token, for a `papo signal
// --public` server; its self-signed certificate is not checked (the pin is tested in tests/net/).
function welcome(onWelcome) {
  const token = process.env.PROBE_TOKEN;
  const ws = new WebSocket(
    url,
    token ? { headers: { authorization: `Bearer ${token}` }, rejectUnauthorized: false } : {},
  );
  ws.on('error', (e) => fail(`websocket: ${e.message}`));
  ws.once('message', (data) => onWelcome(ws, JSON.parse(String(data))));
  return ws;
}

// --- the smallest TURN client (RFC 8656 Allocate and CreatePermission, long-term credentials of
// RFC 8489 9.2), over UDP or TCP ---
const ALLOCATE = 0x0003;
const PERMISSION = 0x0008;
function attribute(type, value) {
  const out = Buffer.alloc(4 + Math.ceil(value.length / 4) * 4);
  out.writeUInt16BE(type, 0);
  out.writeUInt16BE(value.length, 2);
  value.copy(out, 4);
  return out;
}
function encode(method, tid, attrs, key) {
  const body = Buffer.concat(attrs);
  const header = Buffer.alloc(20);
  header.writeUInt16BE(method, 0);
  header.writeUInt16BE(body.length + (key ? 24 : 0), 2);
  header.writeUInt32BE(0x2112a442, 4);
  tid.copy(header, 8);
  const unsigned = Buffer.concat([header, body]);
  if (!key) return unsigned;
  return Buffer.concat([unsigned, attribute(0x0008, createHmac('sha1', key).update(unsigned).digest())]);
}
function decode(msg) {
  const attrs = new Map();
  for (let at = 20; at + 4 <= 20 + msg.readUInt16BE(2); ) {
    const len = msg.readUInt16BE(at + 2);
    if (!attrs.has(msg.readUInt16BE(at))) attrs.set(msg.readUInt16BE(at), msg.subarray(at + 4, at + 4 + len));
    at += 4 + Math.ceil(len / 4) * 4;
  }
  const err = attrs.get(0x0009);
  return { type: msg.readUInt16BE(0), attrs, code: err ? (err[2] & 7) * 100 + err[3] : undefined };
}
/** A channel to coturn: send(buffer) and STUN messages handed to onMessage. */
async function channel(overTcp) {
  const port = Number(turnPort);
  const listeners = new Set();
  if (!overTcp) {
    const socket = createSocket('udp4');
    await new Promise((resolve) => socket.bind(0, '127.0.0.1', resolve));
    socket.on('message', (m) => {
      for (const l of listeners) l(m);
    });
    return {
      udp: true,
      send: (b) => socket.send(b, port, '127.0.0.1'),
      listeners,
      close: () => socket.close(),
    };
  }
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', reject);
  });
  let pending = Buffer.alloc(0);
  socket.on('data', (chunk) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 20 && pending.length >= 20 + pending.readUInt16BE(2)) {
      const m = pending.subarray(0, 20 + pending.readUInt16BE(2));
      pending = pending.subarray(m.length);
      for (const l of listeners) l(m);
    }
  });
  return { udp: false, send: (b) => socket.write(b), listeners, close: () => socket.destroy() };
}
function transact(ch, build) {
  const tid = randomBytes(12);
  const request = build(tid);
  return new Promise((resolve, reject) => {
    const resend = ch.udp ? setInterval(() => ch.send(request), 250) : undefined;
    const timer = setTimeout(() => done(reject, new Error('no answer from the TURN server')), 10_000);
    const onMessage = (msg) => {
      if (msg.length >= 20 && msg.subarray(8, 20).equals(tid)) done(resolve, decode(msg));
    };
    const done = (settle, value) => {
      clearInterval(resend);
      clearTimeout(timer);
      ch.listeners.delete(onMessage);
      settle(value);
    };
    ch.listeners.add(onMessage);
    ch.send(request);
  });
}
/** Allocates (relay 17: UDP, 6: TCP) and returns the answer and a signed request maker. */
async function allocate(ch, username, password, relay = 17) {
  const transport = attribute(0x0019, Buffer.from([relay, 0, 0, 0]));
  const challenge = await transact(ch, (tid) => encode(ALLOCATE, tid, [transport]));
  const realm = challenge.attrs.get(0x0014);
  const nonce = challenge.attrs.get(0x0015);
  if (challenge.code !== 401 || !realm || !nonce) throw new Error(`no 401 challenge (got ${challenge.code})`);
  const key = createHash('md5').update(`${username}:${realm}:${password}`).digest();
  const auth = [attribute(0x0006, Buffer.from(username)), attribute(0x0014, realm), attribute(0x0015, nonce)];
  const signed = (method, attrs) => transact(ch, (tid) => encode(method, tid, [...attrs, ...auth], key));
  return { answer: await signed(ALLOCATE, [transport]), signed };
}
function xorPeer(ip) {
  const out = Buffer.alloc(8);
  out[1] = 0x01;
  out.writeUInt16BE(0x2112, 2);
  const raw = ip.split('.').reduce((a, b) => a * 256 + Number(b), 0);
  out.writeUInt32BE((raw ^ 0x2112a442) >>> 0, 4);
  return attribute(0x0012, out);
}
async function turnChecks(username, password) {
  const udp = await channel(false);
  try {
    const ok = await allocate(udp, username, password);
    if (ok.answer.type !== 0x0103) fail(`minted credential refused (error ${ok.answer.code})`);
    console.log(`minted credential (${username}): allocation accepted`);
    const denied = await ok.signed(PERMISSION, [xorPeer('10.0.0.1')]);
    if (denied.code !== 403)
      fail(`CreatePermission to 10.0.0.1 not refused with 403 (${denied.type}, ${denied.code})`);
    const granted = await ok.signed(PERMISSION, [xorPeer('8.8.8.8')]);
    if (granted.type !== 0x0108) fail(`CreatePermission to 8.8.8.8 refused (${granted.code})`);
    console.log('CreatePermission: 10.0.0.1 refused with 403, 8.8.8.8 granted');
  } finally {
    udp.close();
  }
  const bad = await channel(false);
  try {
    const r = await allocate(bad, username, `x${password}`);
    if (r.answer.code !== 401) fail(`tampered credential not refused with 401 (error ${r.answer.code})`);
    console.log('tampered credential: refused with 401');
  } finally {
    bad.close();
  }
  for (const [relay, name] of [
    [17, 'UDP'],
    [6, 'TCP'],
  ]) {
    const tcp = await channel(true);
    try {
      const r = await allocate(tcp, username, password, relay);
      if (relay === 17 && r.answer.type !== 0x0103) fail(`a UDP relay over TCP refused (${r.answer.code})`);
      if (relay === 6 && r.answer.code !== 442)
        fail(`a TCP relay not refused with 442 (type ${r.answer.type}, error ${r.answer.code})`);
      console.log(`over TCP, a ${name} relay: ${relay === 17 ? 'granted' : 'refused with 442'}`);
    } finally {
      tcp.close();
    }
  }
}

if (mode === 'welcome') {
  welcome((ws, msg) => {
    if (msg.t !== 'welcome' || msg.v !== 1) fail(`expected a v1 welcome, got ${JSON.stringify(msg)}`);
    console.log(`welcome v${msg.v}, ${msg.iceServers.length} ICE server entries`);
    ws.on('close', (code) => {
      console.log(`closed ${code}`);
      process.exit(code === 1001 ? 0 : 1);
    });
    ws.send(JSON.stringify({ t: 'join', topic: 'a'.repeat(64), peer: 'b'.repeat(64) }));
    ws.once('message', (data) => console.log(`joined: ${JSON.parse(String(data)).t}`));
  });
} else if (mode === 'turn') {
  welcome(async (ws, msg) => {
    ws.close();
    const turn = (msg.iceServers || []).find((s) => s.username && s.credential);
    if (!turn) fail('the welcome carries no TURN credential');
    try {
      await turnChecks(turn.username, turn.credential);
      process.exit(0);
    } catch (e) {
      fail(e.message);
    }
  });
} else {
  fail(`unknown mode ${mode}`);
}
