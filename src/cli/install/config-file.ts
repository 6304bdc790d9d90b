// How papo install rewrites a client's configuration file (Codex's config.toml, Gemini CLI's
// settings.json, opencode.json): whole, through a temporary file in the same folder renamed over
// it, so that a client never reads half a file and a failed write leaves the old one.
import { chmodSync, mkdirSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Writes `text` to `file` atomically. The file keeps its mode; a new one gets 0600 (it may hold a
 * personal PAPO_HOME). The umask narrows neither. Its folder is made when missing.
 */
export function writeAtomically(file: string, text: string): void {
  let mode = 0o600;
  try {
    mode = statSync(file).mode & 0o777;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.papo-${process.pid}.tmp`;
  try {
    writeFileSync(tmp, text, { mode });
    chmodSync(tmp, mode);
    renameSync(tmp, file);
  } catch (err) {
    try {
      unlinkSync(tmp);
    } catch {}
    throw err;
  }
}
