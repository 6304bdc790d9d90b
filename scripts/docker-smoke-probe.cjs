// Probe for scripts/docker-smoke.sh, run with node inside a container of the papo image
// (NODE_PATH=/app/node_modules gives it `ws`). Two modes:
//   welcome <ws-url>           prints the welcome, joins a topic, stays until the server closes the
//                              socket; exits 0 only on close code 1001 (going away: a clean stop).
//   turn <ws-url> <turn-port>  takes the TURN credential from the welcome and allocates on coturn
//                              at 127.0.0.1:<turn-port> with it (must succeed) and with a tampered
//                              copy (must be refused with 401).
'use strict';
const { createHash, createHmac, randomBytes } = require('node:crypto');
const { createSocket } = require('node:dgram');
const WebSocket = require('ws');

const [mode, url, turnPort] = process.argv.slice(2);

function fail(message) {
  console.log(`FAIL ${message}`);
  process.exit(1);
}

function welcome(onWelcome) {
  const ws = new WebSocket(url);
  ws.on('error', (e) => fail(`websocket: ${e.message}`));
  ws.once('message', (data) => onWelcome(ws, JSON.parse(String(data))));
  return ws;
}

// --- the smallest TURN Allocate (RFC 5766 6, long-term credentials of RFC 5389 10.2) ---
function attribute(type, value) {
  const out = Buffer.alloc(4 + Math.ceil(value.length / 4) * 4);
  out.writeUInt16BE(type, 0);
  out.writeUInt16BE(value.length, 2);
  value.copy(out, 4);
  return out;
}
function encode(tid, attrs, key) {
  const body = Buffer.concat(attrs);
  const header = Buffer.alloc(20);
  header.writeUInt16BE(0x0003, 0); // Allocate request
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
function transact(socket, build) {
  const tid = randomBytes(12);
  const request = build(tid);
  return new Promise((resolve, reject) => {
    const send = () => socket.send(request, Number(turnPort), '127.0.0.1');
    const resend = setInterval(send, 250);
    const timer = setTimeout(() => done(reject, new Error('no answer from the TURN server')), 10_000);
    const onMessage = (msg) => {
      if (msg.length >= 20 && msg.subarray(8, 20).equals(tid)) done(resolve, decode(msg));
    };
    const done = (settle, value) => {
      clearInterval(resend);
      clearTimeout(timer);
      socket.off('message', onMessage);
      settle(value);
    };
    socket.on('message', onMessage);
    send();
  });
}
async function allocate(username, password) {
  const socket = createSocket('udp4');
  await new Promise((resolve) => socket.bind(0, '127.0.0.1', resolve));
  try {
    const udp = attribute(0x0019, Buffer.from([17, 0, 0, 0]));
    const challenge = await transact(socket, (tid) => encode(tid, [udp]));
    const realm = challenge.attrs.get(0x0014);
    const nonce = challenge.attrs.get(0x0015);
    if (challenge.code !== 401 || !realm || !nonce)
      throw new Error(`no 401 challenge (got ${challenge.code})`);
    const key = createHash('md5').update(`${username}:${realm}:${password}`).digest();
    const user = attribute(0x0006, Buffer.from(username));
    return await transact(socket, (tid) =>
      encode(tid, [udp, user, attribute(0x0014, realm), attribute(0x0015, nonce)], key),
    );
  } finally {
    socket.close();
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
      const ok = await allocate(turn.username, turn.credential);
      if (ok.type !== 0x0103) fail(`minted credential refused (error ${ok.code})`);
      console.log(`minted credential (${turn.username}): allocation accepted`);
      const bad = await allocate(turn.username, `x${turn.credential}`);
      if (bad.code !== 401)
        fail(`tampered credential not refused with 401 (type ${bad.type}, error ${bad.code})`);
      console.log('tampered credential: refused with 401');
      process.exit(0);
    } catch (e) {
      fail(e.message);
    }
  });
} else {
  fail(`unknown mode ${mode}`);
}
