// What a group of processes costs the machine in memory, pages counted once (for the benchmarks,
// Linux, root): RSS counts every resident page a process maps, so two node processes each count
// the node binary's ~40 MB of code, and the sum of their RSS counts it twice although the machine
// holds it once (and once for every node process it runs). Here each process's resident pages are
// read from /proc/<pid>/pagemap (their physical frame numbers, which only root can see) and the
// group's frames are counted once: the memory the group holds. Its private part (USS, pages no
// other process maps) and what it shares with others (the node binary, libc) are given apart, as
// /proc/<pid>/smaps_rollup reports them.
import { closeSync, openSync, readFileSync, readSync } from 'node:fs';

const PAGE = 4096;
const PRESENT = 1n << 63n;
const PFN_MASK = (1n << 55n) - 1n;

export interface ProcessMemory {
  /** Resident set, as ps shows it. */
  rssKiB: number;
  /** Pages only this process maps (Private_Clean + Private_Dirty). */
  ussKiB: number;
  /** Resident pages it shares with another process (Shared_Clean + Shared_Dirty). */
  sharedKiB: number;
}

/** One process's RSS, private and shared memory (smaps_rollup). */
export function processMemory(pid: number): ProcessMemory {
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  const kib = (key: string) => Number(new RegExp(`^${key}:\\s+(\\d+)`, 'm').exec(rollup)?.[1] ?? 0);
  return {
    rssKiB: kib('Rss'),
    ussKiB: kib('Private_Clean') + kib('Private_Dirty'),
    sharedKiB: kib('Shared_Clean') + kib('Shared_Dirty'),
  };
}

/** The physical frames of `pid`'s resident pages (needs root; 0 without the frame numbers). */
function frames(pid: number, into: Set<number>): void {
  const maps = readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n');
  const fd = openSync(`/proc/${pid}/pagemap`, 'r');
  try {
    for (const line of maps) {
      const m = /^([0-9a-f]+)-([0-9a-f]+) (\S{4})/.exec(line);
      // A mapping that allows no access (a reserve, a guard) holds no resident page.
      if (m === null || m[3]?.startsWith('---')) continue;
      const start = BigInt(`0x${m[1]}`);
      const end = BigInt(`0x${m[2]}`);
      if (start >= 0xffffffffff600000n) continue; // [vsyscall]: not in the pagemap
      const pages = Number((end - start) / BigInt(PAGE));
      const chunk = Buffer.alloc(Math.min(pages, 65_536) * 8);
      for (let done = 0; done < pages; ) {
        const n = Math.min(pages - done, chunk.length / 8);
        const position = Number((start / BigInt(PAGE) + BigInt(done)) * 8n);
        const read = readSync(fd, chunk, 0, n * 8, position);
        if (read <= 0) break;
        for (let i = 0; i < read / 8; i++) {
          const entry = chunk.readBigUInt64LE(i * 8);
          if ((entry & PRESENT) === 0n) continue;
          const pfn = Number(entry & PFN_MASK);
          if (pfn !== 0) into.add(pfn);
        }
        done += read / 8;
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** The memory `pids` hold together, every physical page counted once, in KiB. */
export function groupKiB(pids: number[]): number {
  const all = new Set<number>();
  for (const pid of pids) frames(pid, all);
  return (all.size * PAGE) / 1024;
}
