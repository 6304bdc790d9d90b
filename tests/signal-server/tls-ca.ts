// A certificate authority made by the test with openssl, and leaf certificates it signs for
// localhost and 127.0.0.1: what `papo signal --tls-cert/--tls-key` is given in the TLS tests. The
// keys are made fresh in a temporary folder and removed with it; nothing here is a real credential.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const EC = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

export interface TestCa {
  dir: string;
  /** The CA certificate (PEM file): NODE_EXTRA_CA_CERTS of a member, `ca` of a test client. */
  caFile: string;
  ca: Buffer;
}

export function makeCa(dir: string): TestCa {
  openssl(
    [
      'req',
      '-x509',
      ...EC,
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '2',
      '-subj',
      '/CN=papo test CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    ],
    dir,
  );
  const caFile = join(dir, 'ca.pem');
  return { dir, caFile, ca: readFileSync(caFile) };
}

export interface Leaf {
  /** Upper-case hex, as node's X509Certificate and getPeerCertificate() write it. */
  serial: string;
  cert: Buffer;
  key: Buffer;
}

/** A leaf for localhost and 127.0.0.1 with a fresh key and a random serial. */
export function issueLeaf(ca: TestCa): Leaf {
  const name = `leaf-${randomBytes(4).toString('hex')}`;
  const serial = `7${randomBytes(8).toString('hex').slice(1)}`.toUpperCase();
  openssl(['req', ...EC, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', '/CN=localhost'], ca.dir);
  writeFileSync(
    join(ca.dir, `${name}.ext`),
    'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n',
  );
  openssl(
    [
      'x509',
      '-req',
      '-in',
      `${name}.csr`,
      '-CA',
      'ca.pem',
      '-CAkey',
      'ca.key',
      '-set_serial',
      `0x${serial}`,
      '-days',
      '1',
      '-extfile',
      `${name}.ext`,
      '-out',
      `${name}.pem`,
    ],
    ca.dir,
  );
  return {
    serial,
    cert: readFileSync(join(ca.dir, `${name}.pem`)),
    key: readFileSync(join(ca.dir, `${name}.key`)),
  };
}

/** Puts a pair where the server reads it, each file replaced at once (as certbot's symlinks do). */
export function install(
  paths: { certFile: string; keyFile: string },
  pair: { cert: Buffer; key: Buffer },
): void {
  for (const [path, data] of [
    [paths.keyFile, pair.key],
    [paths.certFile, pair.cert],
  ] as const) {
    const tmp = `${path}.new-${randomBytes(3).toString('hex')}`;
    writeFileSync(tmp, data, { mode: 0o600 });
    renameSync(tmp, path);
  }
}
