// papo log: the room's conversation as this profile's agent saw it (log.jsonl, written by papo mcp).
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { readLogFrom, readLogTail } from '../../client/store/log-file.js';
import { formatLogEntry, type ReviewMark } from '../../client/store/log-format.js';
import { LOG_FILE } from '../../client/store/profile-files.js';
import { openProfile } from '../../client/store/profile-store.js';
import type { LogEntry } from '../../client/wire/messages.js';
import { type CliContext, checkedProfile, home, text } from '../context.js';

const POLL_MS = 250;

interface LogOptions {
  n: string;
  f?: boolean;
}

export function register(program: Command, ctx: CliContext): void {
  program
    .command('log')
    .description("show the room's conversation, as your agent saw it")
    .option('-n <N>', 'how many of the last entries to show', '20')
    .option('-f', 'keep printing new entries as they arrive (Ctrl-C to stop)')
    .action(async (opts: LogOptions) => {
      const t = text(ctx);
      if (!/^\d+$/.test(opts.n) || Number(opts.n) < 1) throw new Error(t.badCount(opts.n));
      const count = Number(opts.n);
      const profile = await openProfile({ home: home(ctx), profile: checkedProfile(ctx) });
      const path = join(profile.dir, LOG_FILE);
      // Read the tail up to a known size, then follow from that size: nothing shown twice or missed.
      const size = await stat(path).then(
        (s) => s.size,
        () => 0,
      );
      const entries = await readLogTail(path, count, size);
      print(entries, profile.name);
      // On stderr, so a script reading stdout still gets only log lines.
      if (entries.length === 0) process.stderr.write(`${opts.f ? t.logEmptyFollowing : t.logEmpty}\n`);
      if (opts.f) await follow(path, size, profile.name);
    });
}

/** A message the review gate held: the person sees its text, and that their agent does not yet. */
const HELD: ReviewMark = { note: 'held for your review: papo review', body: true };

function print(entries: LogEntry[], self: string): void {
  for (const entry of entries)
    process.stdout.write(
      `${formatLogEntry(entry, self, entry.ev === 'in' && entry.held ? HELD : undefined)}\n`,
    );
}

/** Polls the file (works on every file system, container volumes included) until Ctrl-C. */
function follow(path: string, from: number, self: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let offset = from;
    let busy = false;
    const timer = setInterval(async () => {
      if (busy) return;
      busy = true;
      try {
        const { entries, next } = await readLogFrom(path, offset);
        offset = next;
        print(entries, self);
      } catch (err) {
        stop();
        reject(err);
      } finally {
        busy = false;
      }
    }, POLL_MS);
    const stop = () => {
      clearInterval(timer);
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    };
    const onSignal = () => {
      stop();
      resolve();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
}
