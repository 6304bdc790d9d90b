// TLS for `papo signal` itself (ADR 0073): a certificate and key read from files at start, checked
// (readable, PEM, the key matching the certificate) with an error that names the file, and read
// again when either file changes on disk (certbot, acme.sh, cert-manager renew in place or by a
// new symlink target). A renewed pair goes to `server.setSecureContext`: new handshakes use it,
// open sockets keep theirs. A renewed pair that does not load is logged and the previous one kept.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { createSecureContext, type SecureContextOptions } from 'node:tls';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
}

export interface LoadedPair {
  cert: Buffer;
  key: Buffer;
  /** Of the leaf certificate: printed in logs (neither is secret). */
  serial: string;
  validTo: string;
}

/** A certificate or key that cannot be used; the message names the file and never its contents. */
export class TlsFileError extends Error {}

function readPem(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied (the server runs as this user and must be able to read it)'
          : code === 'EISDIR'
            ? 'it is a folder'
            : (code ?? 'unreadable');
    throw new TlsFileError(`cannot read the TLS ${what} ${path}: ${why}`);
  }
}

/** Reads and checks a pair; throws TlsFileError with a message for a person. */
export function loadPair(files: TlsFiles): LoadedPair {
  const cert = readPem(files.certFile, 'certificate');
  const key = readPem(files.keyFile, 'key');
  let x509: X509Certificate;
  try {
    // The first certificate of the file is the leaf; the rest is the chain sent along with it.
    x509 = new X509Certificate(cert);
  } catch {
    throw new TlsFileError(`${files.certFile} is not a PEM certificate`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch {
    // A passphrase-protected key lands here too: the server has no way to be given a passphrase.
    throw new TlsFileError(`${files.keyFile} is not an unencrypted PEM private key`);
  }
  if (!x509.checkPrivateKey(privateKey)) {
    throw new TlsFileError(
      `the TLS key ${files.keyFile} does not belong to the certificate ${files.certFile} (a pair from two renewals?)`,
    );
  }
  try {
    createSecureContext({ cert, key });
  } catch (err) {
    throw new TlsFileError(
      `the TLS pair cannot be used: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  return { cert, key, serial: x509.serialNumber, validTo: x509.validTo };
}

/** What changes when a file is replaced: stat follows symlinks, so a new symlink target counts. */
function fingerprint(files: TlsFiles): string {
  const one = (path: string) => {
    try {
      const s = statSync(path);
      return `${s.dev}:${s.ino}:${s.size}:${s.mtimeMs}`;
    } catch {
      return 'missing';
    }
  };
  return `${one(files.certFile)}|${one(files.keyFile)}`;
}

/**
 * Polls both files' stat every `intervalMs` (no inotify: it misses a symlink swapped in a mounted
 * Secret and does not exist on every file system) and calls `apply` with a pair that loads. A
 * change that does not load is logged once; the next change of either file is tried again.
 */
export class TlsReloader {
  #seen: string;
  readonly #timer: NodeJS.Timeout;

  constructor(
    private readonly files: TlsFiles,
    intervalMs: number,
    private readonly apply: (options: SecureContextOptions, pair: LoadedPair) => void,
    private readonly log: (line: string) => void,
  ) {
    this.#seen = fingerprint(files);
    this.#timer = setInterval(() => this.check(), intervalMs);
    this.#timer.unref();
  }

  /** Looks once (the timer calls it; tests may too). */
  check(): void {
    const now = fingerprint(this.files);
    if (now === this.#seen) return;
    this.#seen = now;
    let pair: LoadedPair;
    try {
      pair = loadPair(this.files);
    } catch (err) {
      this.log(
        `tls: the changed certificate files were not loaded, the previous certificate stays: ${err instanceof Error ? err.message : String(err)}`,
      );
      return;
    }
    try {
      this.apply({ cert: pair.cert, key: pair.key }, pair);
    } catch (err) {
      this.log(
        `tls: the renewed certificate was refused, the previous one stays: ${err instanceof Error ? err.message : String(err)}`,
      );
      return;
    }
    this.log(`tls: renewed certificate loaded (serial ${pair.serial}, valid until ${pair.validTo})`);
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
