// A self-signed certificate for "localhost" (EC P-256, one day), for the tests' TLS listeners (a
// coturn with `turns:`): trusted only where a test passes it as a CA.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Writes cert.pem and key.pem into `dir`; returns their paths. */
export function localhostCert(dir: string): { cert: string; key: string } {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost',
      '-keyout',
      key,
      '-out',
      cert,
    ],
    { stdio: 'ignore' },
  );
  return { cert, key };
}
