// The state of `papo signal --public` (ADR 0088): one folder (default $PAPO_HOME/signal, 0700) with
// what must outlive a restart, each file 0600 — the TLS key (its pin is in every member's address),
// the certificate made with it, the signal token and coturn's TURN secret. Made at first start and
// read at every start after; a file that is there but unreadable stops the start rather than being
// replaced, since a new token or key would lock out every member. No link is followed where a file
// is read or written (ADR 0061: O_NOFOLLOW reads, durable writes that refuse a link at the target).

import {
  createPrivateKey,
  generateKeyPairSync,
  type KeyObject,
  randomBytes,
  X509Certificate,
} from 'node:crypto';
import { chmodSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { messageOf } from '../../client/errors.js';
import { writeFileDurable } from '../../client/store/durable-file.js';
import { readNoFollowSync } from '../../client/store/no-follow.js';
import { certificatePin } from '../../signal-protocol.js';
import { selfSignedCertificate } from './self-signed.js';

/** The file names in the state folder. */
export const STATE_FILES = {
  key: 'key.pem',
  cert: 'cert.pem',
  token: 'token',
  turnSecret: 'turn-secret',
  coturnConf: 'turnserver.conf',
} as const;

/** How long a certificate made here is valid, and how near its end it is made again (same key). */
export const CERT_LIFETIME_DAYS = 90;
export const RENEW_BEFORE_DAYS = 30;
const DAY_MS = 86_400_000;

/** 32 random bytes in base64url: the token and the TURN secret (43 characters). */
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;
export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

export class StateError extends Error {}

export interface PublicState {
  dir: string;
  token: string;
  turnSecret: string;
  keyFile: string;
  certFile: string;
  /** What was made at this start (for the log): empty when everything was already there. */
  made: string[];
}

/**
 * The folder, made 0700 if missing, narrowed to 0700 if wider. The folder itself may be a link to
 * a folder (systemd's DynamicUser= makes /var/lib/NAME one; ADR 0061 allows links above a file),
 * but it must be a folder of this user's: its files are never opened through a link.
 */
export function stateFolder(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = statSync(dir);
  if (!st.isDirectory()) throw new StateError(`${dir} is not a folder`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) {
    throw new StateError(
      `${dir} belongs to another user: papo signal keeps its key and token in a folder of its own`,
    );
  }
  if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
}

function readState(path: string): string | null {
  try {
    return readNoFollowSync(path);
  } catch (err) {
    throw new StateError(`cannot read ${path}: ${messageOf(err)}`);
  }
}

async function secretFile(path: string, made: string[], what: string): Promise<string> {
  const text = readState(path);
  if (text === null) {
    const value = newSecret();
    await writeFileDurable(path, `${value}\n`);
    made.push(what);
    return value;
  }
  const value = text.trim();
  if (!SECRET_PATTERN.test(value)) {
    throw new StateError(
      `${path} does not hold a ${what} papo made (43 base64url characters); restore it, or remove it to make a new one (members then need a new address)`,
    );
  }
  return value;
}

async function keyFile(path: string, made: string[]): Promise<KeyObject> {
  const text = readState(path);
  if (text === null) {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    await writeFileDurable(path, privateKey.export({ type: 'pkcs8', format: 'pem' }) as string);
    made.push('TLS key');
    return privateKey;
  }
  try {
    const key = createPrivateKey(text);
    if (key.asymmetricKeyType !== 'ec') throw new Error('not an EC key');
    return key;
  } catch {
    throw new StateError(
      `${path} is not the P-256 key papo made; restore it, or remove it to make a new one (members then need a new address)`,
    );
  }
}

/** Whether `cert` is for `address` (its SubjectAltName) and valid for RENEW_BEFORE_DAYS more. */
function certificateHolds(cert: X509Certificate, address: string, key: KeyObject, now: Date): boolean {
  if (!cert.checkPrivateKey(key)) return false;
  if (new Date(cert.validTo).getTime() - now.getTime() < RENEW_BEFORE_DAYS * DAY_MS) return false;
  if (new Date(cert.validFrom).getTime() > now.getTime()) return false;
  return cert.checkHost(address) !== undefined || cert.checkIP(address) !== undefined;
}

/**
 * The certificate file made again with the same key when it is missing, not for `address`, or
 * within RENEW_BEFORE_DAYS of its end. Returns whether it was made.
 */
export async function ensureCertificate(
  state: { certFile: string; keyFile: string },
  address: string,
  now: Date = new Date(),
): Promise<boolean> {
  const key = createPrivateKey(readState(state.keyFile) ?? '');
  const text = readState(state.certFile);
  if (text !== null) {
    try {
      if (certificateHolds(new X509Certificate(text), address, key, now)) return false;
    } catch {}
  }
  const pem = selfSignedCertificate({
    key,
    address,
    // An hour back, so a member whose clock is a little behind does not see it "not yet valid".
    notBefore: new Date(now.getTime() - 3_600_000),
    notAfter: new Date(now.getTime() + CERT_LIFETIME_DAYS * DAY_MS),
  });
  await writeFileDurable(state.certFile, pem);
  return true;
}

/** Reads the state in `dir`, making what is missing. `address` is what members dial. */
export async function openPublicState(
  dir: string,
  address: string,
  options: { selfSigned: boolean; now?: Date },
): Promise<PublicState> {
  stateFolder(dir);
  const made: string[] = [];
  const token = await secretFile(join(dir, STATE_FILES.token), made, 'signal token');
  const turnSecret = await secretFile(join(dir, STATE_FILES.turnSecret), made, 'TURN secret');
  const state = {
    dir,
    token,
    turnSecret,
    keyFile: join(dir, STATE_FILES.key),
    certFile: join(dir, STATE_FILES.cert),
    made,
  };
  if (options.selfSigned) {
    await keyFile(state.keyFile, made);
    if (await ensureCertificate(state, address, options.now)) made.push('self-signed certificate');
  }
  return state;
}

/** The pin members check (src/signal-protocol.ts) of the leaf certificate in a PEM file. */
export function pinOfCertificate(pem: string | Buffer): string {
  const spki = new X509Certificate(pem).publicKey.export({ type: 'spki', format: 'der' });
  return certificatePin(spki);
}
