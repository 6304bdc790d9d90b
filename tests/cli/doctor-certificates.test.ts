// A signal server whose certificate this machine does not trust (issue 26): papo doctor names the
// certificate's problem as such — self-signed without a pin, signed by an unknown authority,
// expired, not valid yet, made for another name — with the fix, and skips STUN, NAT and TURN (their
// servers come with the welcome it did not get) instead of blaming UDP; papo join says the same in
// one line. Real papo signal servers with TLS on loopback, certificates made here.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type TestContext, test } from 'node:test';
import { selfSignedCertificate } from '../../src/cli/signal-public/self-signed.js';
import { encodeInvite } from '../../src/client/wire/invite.js';
import { generateSecret } from '../../src/client/wire/room-crypto.js';
import { startSignalServer } from '../../src/signal-server/server.js';
import { tempDir } from '../support/files.js';
import { runPapo } from '../support/papo.js';
import { check, doctor, doctorJson, env, profile } from './doctor-helpers.js';

const DAY = 86_400_000;

/** A self-signed certificate for `address`, valid from `from` to `to` (ms from now), as files. */
function selfSigned(dir: string, address: string, from: number, to: number): { cert: string; key: string } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const now = Date.now();
  writeFileSync(
    cert,
    selfSignedCertificate({
      key: privateKey,
      address,
      notBefore: new Date(now + from),
      notAfter: new Date(now + to),
    }),
  );
  writeFileSync(key, privateKey.export({ type: 'pkcs8', format: 'pem' }));
  return { cert, key };
}

/** A private CA (not trusted here) and a leaf for localhost it signed; the server sends both. */
function privateCa(dir: string): { cert: string; key: string } {
  const run = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'ignore' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  run([
    'req',
    '-x509',
    ...ec,
    '-days',
    '2',
    '-subj',
    '/CN=papo test CA',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
  ]);
  run(['req', ...ec, '-subj', '/CN=localhost', '-keyout', 'key.pem', '-out', 'leaf.csr']);
  writeFileSync(join(dir, 'ext'), 'subjectAltName=DNS:localhost\n');
  run([
    'x509',
    '-req',
    '-in',
    'leaf.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    '1',
    '-extfile',
    'ext',
    '-out',
    'leaf.pem',
  ]);
  execFileSync('sh', ['-c', 'cat leaf.pem ca.pem > chain.pem'], { cwd: dir });
  return { cert: join(dir, 'chain.pem'), key: join(dir, 'key.pem') };
}

async function tlsServer(t: TestContext, files: { cert: string; key: string }): Promise<number> {
  const server = await startSignalServer({
    host: '127.0.0.1',
    port: 0,
    env: {},
    config: { tls: { certFile: files.cert, keyFile: files.key } },
  });
  t.after(() => server.close());
  return server.port;
}

const CASES = [
  {
    problem: 'self_signed',
    files: (dir: string) => selfSigned(dir, 'localhost', -DAY, DAY),
    text: /presents a self-signed certificate, and the room's address pins no key for it$/,
    fix: /^Ask the server's operator for the papo new line papo signal --public prints/,
  },
  {
    problem: 'unknown_ca',
    files: privateCa,
    text: /presents a certificate signed by an authority this machine does not trust$/,
    fix: /^Set NODE_EXTRA_CA_CERTS=\/path\/to\/ca\.pem where papo runs/,
  },
  {
    problem: 'expired',
    files: (dir: string) => selfSigned(dir, 'localhost', -3 * DAY, -DAY),
    text: /presents a certificate that has expired$/,
    fix: /^The server's operator must renew it/,
  },
  {
    problem: 'not_yet_valid',
    files: (dir: string) => selfSigned(dir, 'localhost', DAY, 3 * DAY),
    text: /presents a certificate that is not valid yet$/,
    fix: /^Check this machine's date and time/,
  },
  {
    problem: 'name_mismatch',
    files: (dir: string) => selfSigned(dir, 'signal.example.test', -DAY, DAY),
    text: /presents a certificate made for another name than localhost$/,
    fix: /^Use the name the certificate was made for/,
  },
] as const;

for (const c of CASES) {
  test(`a certificate that is ${c.problem.replace(/_/g, ' ')}: doctor names it with the fix, skips what needs the welcome; join says it in a line`, {
    timeout: 60_000,
  }, async (t) => {
    const files = c.files(tempDir(t, 'papo-cert-'));
    // The expired and not-yet-valid ones are trusted as a CA, so that their dates are what fails.
    const trust = c.problem === 'expired' || c.problem === 'not_yet_valid' || c.problem === 'name_mismatch';
    const extra = trust ? { NODE_EXTRA_CA_CERTS: files.cert } : {};
    const port = await tlsServer(t, files);
    const url = `wss://localhost:${port}`;
    const home = await profile(t, url);
    const { code, report } = await doctorJson(env(home, extra));
    assert.equal(code, 1);
    const signal = check(report, 'signal');
    assert.equal(signal.status, 'fail');
    assert.equal(signal.data?.outcome, 'certificate');
    assert.equal(signal.data?.problem, c.problem);
    assert.match(signal.text, new RegExp(`^the signal server ${url} `));
    assert.match(signal.text, c.text);
    // A doctor fix starts in lower case ("fix: ask…"); papo join's sentence with a capital.
    assert.match(signal.fix ?? '', new RegExp(c.fix.source, 'i'));
    assert.match(signal.fix ?? '', /^[a-z]/);
    // Nothing blames UDP or the NAT: those servers come with the welcome there was none of.
    const ids = report.checks.map((x) => x.id);
    for (const id of ['stun', 'nat', 'turn']) assert.ok(!ids.includes(id), `${id} in ${ids.join(' ')}`);
    assert.equal(check(report, 'path').status, 'skip');
    assert.match(
      check(report, 'path').text,
      /not checked: this room's ICE servers come with the signal server's answer/,
    );
    assert.equal(report.summary.fail, 1, JSON.stringify(report.checks));

    const joined = await runPapo(['join', encodeInvite(generateSecret(), url), '--name', 'bob'], {
      env: env(join(tempDir(t), 'bob'), extra),
    });
    assert.equal(joined.code, 0, joined.stderr);
    const line = joined.stdout.split('\n').find((l) => l.startsWith('warning: the signal server'));
    assert.ok(line !== undefined, joined.stdout);
    assert.match(line, /; papo sends it nothing\. /);
    assert.match(line.split('; papo sends it nothing. ')[0] ?? '', c.text);
    assert.match(line.split('; papo sends it nothing. ')[1] ?? '', c.fix);
  });
}

test('a self-signed certificate in Portuguese: doctor and join', { timeout: 60_000 }, async (t) => {
  const files = selfSigned(tempDir(t, 'papo-cert-'), 'localhost', -DAY, DAY);
  const port = await tlsServer(t, files);
  const url = `wss://localhost:${port}`;
  const home = await profile(t, url);
  const text = await doctor(env(home, { LANG: 'pt_BR.UTF-8' }));
  assert.equal(text.code, 1);
  assert.match(
    text.stdout,
    /^\[FALHA\] +sinalização +o servidor de sinalização wss:\/\/localhost:\d+ apresenta um certificado autoassinado, e o endereço da sala não fixa nenhuma chave para ele$/m,
  );
  assert.match(text.stdout, /como resolver: peça a quem opera o servidor a linha papo new/);
  const joined = await runPapo(['join', encodeInvite(generateSecret(), url), '--name', 'bob'], {
    env: env(join(tempDir(t), 'bob'), { LANG: 'pt_BR.UTF-8' }),
  });
  assert.match(
    joined.stdout,
    /^aviso: o servidor de sinalização .* autoassinado.*; o papo não manda nada a ele\. Peça/m,
  );
});
