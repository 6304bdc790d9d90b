// Temporary folders for the tests (a PAPO_HOME, a project, a scratch folder), and what is in one.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** node:test's context, or anything that runs a function after the test. */
export interface Hooks {
  after: (fn: () => Promise<void> | void) => void;
}

/**
 * A new empty folder under the system's temporary folder, that nobody removes: for a folder that
 * something else removes (spawnMcp's own home) or that must outlive the test (the NAT lab's homes).
 */
export function makeTempDir(prefix = 'papo-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/**
 * A new empty folder, removed with all it holds after the test. node:test runs a test's `after`
 * hooks in the order they were registered: a process that writes into the folder must be stopped
 * by a hook registered before this one (or by the same hook, as makeRoom does).
 */
export function tempDir(t: Hooks, prefix = 'papo-test-'): string {
  const dir = makeTempDir(prefix);
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Every path under dir with its mode and content, to show that a refused command changed nothing. */
export function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  let names: string[];
  try {
    names = readdirSync(dir, { recursive: true }) as string[];
  } catch {
    return out;
  }
  for (const name of names.sort()) {
    const p = join(dir, name);
    const st = statSync(p);
    out[name] = st.isDirectory()
      ? `<dir ${st.mode & 0o777}>`
      : `${st.mode & 0o777} ${readFileSync(p, 'hex')}`;
  }
  return out;
}
