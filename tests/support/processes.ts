// Processes as /proc shows them, for tests that reach the transport process under a papo mcp
// (ADR 0057): who is whose child, and who has node-datachannel's native library loaded.
import { readdirSync, readFileSync } from 'node:fs';

/** Process ids whose parent is `pid`. */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...; comm may hold spaces, so split after its closing paren.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // the process ended meanwhile
    }
  }
  return out;
}

/** True when the process has node-datachannel's native library loaded. */
export function holdsWebRtc(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/maps`, 'utf8').includes('node_datachannel');
  } catch {
    return false;
  }
}

/** The processes under `pid` that hold node-datachannel: papo's transport process. */
export function webRtcChildren(pid: number): number[] {
  return childPids(pid).filter(holdsWebRtc);
}
