// The parts of `papo signal --public` on their own: the self-signed certificate (read back by
// node:crypto, accepted in a real TLS handshake for its name), its renewal with the kept key (same
// pin), the state folder's refusals, coturn's configuration against docker/turnserver.conf, and the
// STUN responder's answer.
import assert from 'node:assert/strict';
import { generateKeyPairSync, X509Certificate } from 'node:crypto';
import { createSocket } from 'node:dgram';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { type NetworkInterfaceInfo, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { connect } from 'node:tls';
import { messages } from '../../src/cli/i18n.js';
import { coturnConfig, DENIED_PEERS } from '../../src/cli/signal-public/coturn.js';
import {
  checkPublicAddress,
  inRange,
  portsToOpen,
  selfAllowed,
} from '../../src/cli/signal-public/public-signal.js';
import { localAddresses, relayPlan, routeSource } from '../../src/cli/signal-public/relay-addresses.js';
import { ipBytes, selfSignedCertificate } from '../../src/cli/signal-public/self-signed.js';
import { ensureCertificate, openPublicState, pinOfCertificate } from '../../src/cli/signal-public/state.js';
import { startStunResponder } from '../../src/cli/signal-public/stun-responder.js';
import { STUN_METHOD, stunMessage } from '../../src/client/net/stun-message.js';
import { mappedOf } from '../../src/client/net/turn-probe.js';
import { ROOT } from '../support/papo.js';

const root = mkdtempSync(join(tmpdir(), 'papo-public-units-'));
after(() => rmSync(root, { recursive: true, force: true }));
const DAY = 86_400_000;

function certFor(address: string, notBefore = new Date(Date.now() - 60_000), days = 90) {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const pem = selfSignedCertificate({
    key: privateKey,
    address,
    notBefore,
    notAfter: new Date(notBefore.getTime() + days * DAY),
  });
  return { pem, key: privateKey, x509: new X509Certificate(pem) };
}

test('the certificate reads back: its key, its self-signature, its name (DNS, IPv4, IPv6), its dates', () => {
  const dns = certFor('signal.example.org');
  assert.ok(dns.x509.checkPrivateKey(dns.key));
  assert.ok(dns.x509.verify(dns.x509.publicKey));
  assert.equal(dns.x509.subjectAltName, 'DNS:signal.example.org');
  assert.equal(dns.x509.checkHost('signal.example.org'), 'signal.example.org');
  assert.equal(dns.x509.checkHost('other.example.org'), undefined);
  assert.equal(dns.x509.ca, false);
  assert.deepEqual(dns.x509.keyUsage, ['1.3.6.1.5.5.7.3.1']);
  assert.equal(certFor('203.0.113.7').x509.subjectAltName, 'IP Address:203.0.113.7');
  assert.equal(certFor('2001:db8::7').x509.checkIP('2001:db8::7'), '2001:db8::7');
  // UTCTime before 2050, GeneralizedTime from 2050 (RFC 5280 §4.1.2.5).
  const late = certFor('a.example', new Date('2049-12-01T00:00:00Z'), 60);
  assert.equal(new Date(late.x509.validTo).toISOString(), '2050-01-30T00:00:00.000Z');
});

test('IP addresses as bytes', () => {
  assert.deepEqual([...ipBytes('10.1.2.3')], [10, 1, 2, 3]);
  assert.equal(ipBytes('::1').toString('hex'), `${'0'.repeat(31)}1`);
  assert.equal(ipBytes('2001:db8::a:b').toString('hex'), '20010db8000000000000000000' + '0a000b');
  assert.equal(ipBytes('::ffff:192.0.2.1').toString('hex'), '00000000000000000000ffffc0000201');
  assert.equal(ipBytes('fe80::1').toString('hex'), 'fe80000000000000000000000000' + '0001');
});

test('a real TLS handshake accepts it for its name when trusted, and refuses another name', async (t) => {
  const { pem, key } = certFor('localhost');
  const server = createServer({ cert: pem, key: key.export({ type: 'pkcs8', format: 'pem' }) }, (_q, r) =>
    r.end(),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.after(() => server.close());
  const port = (server.address() as AddressInfo).port;
  const handshake = (servername: string) =>
    new Promise<string>((resolve) => {
      const s = connect({ host: '127.0.0.1', port, servername, ca: pem }, () => {
        s.destroy();
        resolve('ok');
      });
      s.once('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    });
  assert.equal(await handshake('localhost'), 'ok');
  assert.equal(await handshake('other.example'), 'ERR_TLS_CERT_ALTNAME_INVALID');
});

test('the state: made once, kept; renewed near its end or for a new name with the same key (same pin)', async () => {
  const dir = join(root, 'state', 'signal');
  const first = await openPublicState(dir, 'signal.example.org', { selfSigned: true });
  assert.deepEqual(first.made, ['signal token', 'TURN secret', 'TLS key', 'self-signed certificate']);
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  const pin = pinOfCertificate(readFileSync(first.certFile));
  const cert = readFileSync(first.certFile, 'utf8');
  const again = await openPublicState(dir, 'signal.example.org', { selfSigned: true });
  assert.deepEqual(again.made, []);
  assert.equal(again.token, first.token);
  assert.equal(again.turnSecret, first.turnSecret);
  assert.equal(readFileSync(first.certFile, 'utf8'), cert);
  // 61 days later (90-day certificate, renewed 30 days before its end): a new certificate, same key.
  assert.equal(await ensureCertificate(first, 'signal.example.org', new Date(Date.now() + 61 * DAY)), true);
  assert.notEqual(readFileSync(first.certFile, 'utf8'), cert);
  assert.equal(pinOfCertificate(readFileSync(first.certFile)), pin);
  // Another address: a certificate for it, same pin.
  const moved = await openPublicState(dir, '198.51.100.4', { selfSigned: true });
  assert.deepEqual(moved.made, ['self-signed certificate']);
  assert.equal(new X509Certificate(readFileSync(first.certFile)).subjectAltName, 'IP Address:198.51.100.4');
  assert.equal(pinOfCertificate(readFileSync(first.certFile)), pin);
});

test('the state: a wider folder is narrowed; a file there, a linked file, a damaged token or key stops the start', async () => {
  const wide = join(root, 'wide');
  mkdirSync(wide, { mode: 0o755 });
  chmodSync(wide, 0o755);
  await openPublicState(wide, 'a.example', { selfSigned: false });
  assert.equal(statSync(wide).mode & 0o777, 0o700);

  // A link to a folder is that folder (systemd's StateDirectory= with DynamicUser= is one).
  const linked = join(root, 'linked');
  symlinkSync(wide, linked);
  const viaLink = await openPublicState(linked, 'a.example', { selfSigned: false });
  assert.equal(viaLink.token, (await openPublicState(wide, 'a.example', { selfSigned: false })).token);
  const file = join(root, 'a-file');
  writeFileSync(file, '');
  await assert.rejects(openPublicState(file, 'a.example', { selfSigned: false }), /EEXIST|is not a folder/);

  const damaged = join(root, 'damaged');
  mkdirSync(damaged, { mode: 0o700 });
  writeFileSync(join(damaged, 'token'), 'short\n', { mode: 0o600 });
  await assert.rejects(
    openPublicState(damaged, 'a.example', { selfSigned: false }),
    /does not hold a signal token papo made/,
  );

  const tokenLink = join(root, 'token-link');
  mkdirSync(tokenLink, { mode: 0o700 });
  symlinkSync(join(wide, 'token'), join(tokenLink, 'token'));
  await assert.rejects(openPublicState(tokenLink, 'a.example', { selfSigned: false }), /symbolic link/);

  const badKey = join(root, 'bad-key');
  mkdirSync(badKey, { mode: 0o700 });
  writeFileSync(join(badKey, 'key.pem'), 'not a key', { mode: 0o600 });
  await assert.rejects(
    openPublicState(badKey, 'a.example', { selfSigned: true }),
    /is not the P-256 key papo made/,
  );
});

test("coturn's configuration: every setting and the deny list of docker/turnserver.conf", () => {
  const bundle = readFileSync(join(ROOT, 'docker', 'turnserver.conf'), 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'));
  const conf = coturnConfig({
    dir: '/state',
    secret: 'S'.repeat(43),
    host: '0.0.0.0',
    port: 3478,
    tls: { port: 5349, certFile: '/state/cert.pem', keyFile: '/state/key.pem' },
    externalIp: '203.0.113.9/10.0.0.10',
    relayIp: '10.0.0.10',
    allowedPeers: ['100.64.0.0-100.127.255.255'],
    deniedPeers: ['198.51.100.4'],
  }).split('\n');
  assert.deepEqual(
    DENIED_PEERS,
    bundle.filter((l) => l.startsWith('denied-peer-ip=')).map((l) => l.slice('denied-peer-ip='.length)),
  );
  // The bundle leaves TLS to a proxy (no-tls); here coturn does TLS with the server's certificate.
  // Both size their relays to the per-address limit (ADR 0114): twice what one address can hold.
  for (const line of bundle) if (line !== 'no-tls') assert.ok(conf.includes(line), `${line} is kept`);
  for (const line of ['min-port=49160', 'max-port=50120', 'total-quota=960', 'user-quota=24']) {
    assert.ok(conf.includes(line), line);
    assert.ok(bundle.includes(line), `the Docker bundle: ${line}`);
  }
  for (const line of [
    'tls-listening-port=5349',
    'cert=/state/cert.pem',
    'pkey=/state/key.pem',
    'external-ip=203.0.113.9/10.0.0.10',
    'relay-ip=10.0.0.10',
    'denied-peer-ip=198.51.100.4',
    'allowed-peer-ip=100.64.0.0-100.127.255.255',
    `static-auth-secret=${'S'.repeat(43)}`,
  ]) {
    assert.ok(conf.includes(line), line);
  }
  assert.ok(!conf.some((l) => l.startsWith('listening-ip=')), 'every interface');
  assert.ok(!conf.includes('no-tls'));
});

test('--public takes a DNS name or an IP address', () => {
  assert.equal(checkPublicAddress('Signal.Example.org.'), 'signal.example.org');
  assert.equal(checkPublicAddress('[2001:db8::1]'), '2001:db8::1');
  assert.equal(checkPublicAddress('192.0.2.1'), '192.0.2.1');
  for (const bad of ['', 'wss://x', 'a b', 'x/y', 'host:7450', '-a.example']) {
    assert.throws(() => checkPublicAddress(bad), RangeError, bad);
  }
});

test('the STUN responder answers a Binding with the address it came from, and nothing else', async (t) => {
  const stun = await startStunResponder('127.0.0.1', 0);
  t.after(() => stun.close());
  const socket = createSocket('udp4');
  t.after(() => socket.close());
  await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
  const answers: Buffer[] = [];
  socket.on('message', (m) => answers.push(m));
  socket.send(Buffer.from('not stun at all, twenty bytes or more'), stun.port, '127.0.0.1');
  socket.send(stunMessage(STUN_METHOD.allocate, []), stun.port, '127.0.0.1');
  const request = stunMessage(STUN_METHOD.binding, []);
  socket.send(request, stun.port, '127.0.0.1');
  const deadline = Date.now() + 3000;
  while (answers.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await new Promise((r) => setTimeout(r, 100));
  assert.equal(answers.length, 1);
  const answer = answers[0] as Buffer;
  assert.equal(answer.readUInt16BE(0), 0x0101);
  assert.ok(answer.subarray(8, 20).equals(request.subarray(8, 20)));
  assert.equal(answer.length, 32);
  assert.equal(mappedOf(answer), `127.0.0.1:${socket.address().port}`);
});

test('ADDR is allowed as a relay peer only where the deny list would refuse it', () => {
  assert.ok(inRange('10.2.3.4', '10.0.0.0-10.255.255.255'));
  assert.ok(!inRange('11.0.0.0', '10.0.0.0-10.255.255.255'));
  assert.ok(!inRange('::ffff:10.0.0.1', '10.0.0.0-10.255.255.255'));
  assert.ok(inRange('fd00::1', 'fc00::-fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'));
  assert.deepEqual(selfAllowed('192.168.1.5'), ['192.168.1.5']);
  assert.deepEqual(selfAllowed('100.101.102.103'), ['100.101.102.103']);
  assert.deepEqual(selfAllowed('8.8.8.8'), []);
  assert.deepEqual(selfAllowed('2a00:1450::1'), []);
  assert.deepEqual(selfAllowed('signal.example.org'), []);
});

/** An interface entry as os.networkInterfaces() gives it. */
function iface(address: string, internal = false): NetworkInterfaceInfo {
  const v6 = address.includes(':');
  return {
    address,
    netmask: v6 ? 'ffff:ffff:ffff:ffff::' : '255.255.255.0',
    family: v6 ? 'IPv6' : 'IPv4',
    mac: '00:00:00:00:00:00',
    internal,
    cidr: null,
    ...(v6 ? { scopeid: 0 } : {}),
  } as NetworkInterfaceInfo;
}

test('where coturn relays (ADR 0112): on ADDR when it is an interface address, on the private address ADDR maps to behind 1:1 NAT', () => {
  const vm = [iface('127.0.0.1', true), iface('10.0.0.10'), iface('172.17.0.1'), iface('::1', true)];
  // 1:1 NAT: ADDR on no interface; the route out picks the private address, which alone is allowed.
  assert.deepEqual(relayPlan('198.51.100.20', vm, '10.0.0.10'), {
    kind: 'mapped',
    relayIp: '10.0.0.10',
    externalIp: '198.51.100.20/10.0.0.10',
    allowedSelf: ['198.51.100.20', '10.0.0.10'],
  });
  assert.deepEqual(relayPlan('8.8.4.4', vm, '10.0.0.10').allowedSelf, ['10.0.0.10']);
  // A route source that is not an interface address (or none): the first address of the family.
  assert.equal(relayPlan('8.8.4.4', vm, undefined).relayIp, '10.0.0.10');
  assert.equal(relayPlan('8.8.4.4', vm, '172.17.0.1').relayIp, '172.17.0.1');
  // A member's machine at its VPN address: relays on it alone (not on its LAN address too).
  const laptop = [iface('127.0.0.1', true), iface('192.168.1.5'), iface('100.101.102.103')];
  assert.deepEqual(relayPlan('100.101.102.103', laptop, '100.101.102.103'), {
    kind: 'local',
    relayIp: '100.101.102.103',
    externalIp: undefined,
    allowedSelf: ['100.101.102.103'],
  });
  // A public VM: relays on ADDR, nothing of the host allowed.
  assert.deepEqual(relayPlan('8.8.4.4', [iface('8.8.4.4')], '8.8.4.4').allowedSelf, []);
  assert.equal(relayPlan('2001:DB8::1', [iface('2001:db8::1')], undefined).kind, 'local');
  // Neither a name nor a host without an address of ADDR's family is mapped.
  assert.equal(relayPlan('signal.example.org', vm, undefined).kind, 'unknown');
  const only6 = relayPlan('198.51.100.20', [iface('::1', true), iface('2001:db8::5')], undefined);
  assert.deepEqual(only6, {
    kind: 'unknown',
    relayIp: undefined,
    externalIp: '198.51.100.20',
    allowedSelf: ['198.51.100.20'],
  });
});

test('the route source is an address of this host', async () => {
  const source = await routeSource('127.0.0.1');
  assert.equal(source, '127.0.0.1');
  assert.ok(localAddresses().some((i) => i.address === source));
});

test('the ports to open, printed in English and pt-BR', () => {
  const ports = portsToOpen('coturn', 7450, 3478, 5349);
  assert.equal(
    messages('en').signalPorts(ports),
    "Open these ports to this machine (its firewall, the cloud's security group): 7450/tcp (signal server), 7450/udp (STUN), 3478/udp and 3478/tcp (TURN), 5349/tcp (TURN over TLS), 49160-50120/udp (TURN relays). Members whose network cannot reach them fail to link; papo doctor on their side says when this server's TURN ports seem closed.",
  );
  assert.match(
    messages('pt').signalPorts(ports),
    /^Abra estas portas .*: 7450\/tcp \(servidor de sinalização\), 7450\/udp \(STUN\), 3478\/udp e 3478\/tcp \(TURN\), 5349\/tcp \(TURN sobre TLS\), 49160-50120\/udp \(relays TURN\)\./,
  );
  assert.deepEqual(
    portsToOpen('none', 7450, 3478, 5349).map((p) => `${p.port}/${p.protocol}`),
    ['7450/tcp', '7450/udp', '3478/udp'],
  );
  assert.deepEqual(
    portsToOpen('external', 443, 3478, 5349).map((p) => `${p.port}/${p.protocol}`),
    ['443/tcp', '443/udp'],
  );
});
