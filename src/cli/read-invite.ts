// `papo join` without an argument reads the invite from standard input (ADR 0061): an argument
// sits in /proc/<pid>/cmdline, where any process of the machine can read it, and in the shell's
// history. From a pipe or a file it is the first line; on a terminal it is typed or pasted at a
// prompt that does not echo it (raw mode, like a password prompt).
import { PapoError } from '../client/errors.js';

/** An invite is under 500 characters; a pipe that sends more than this is not sending one. */
const MAX_INPUT = 64 * 1024;

interface Input extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?: (mode: boolean) => unknown;
}

function noInvite(): PapoError {
  return new PapoError(
    'no_invite',
    'no invite was given: pass it on standard input (papo join --name <name> < invite.txt), type it at the prompt, or give it as the argument',
  );
}

/** The invite from `stdin`, trimmed. Errors: PapoError 'no_invite' when nothing came. */
export async function readInvite(
  prompt: string,
  stdin: Input = process.stdin,
  stderr: NodeJS.WritableStream = process.stderr,
): Promise<string> {
  const text =
    stdin.isTTY === true && typeof stdin.setRawMode === 'function'
      ? await readHidden(prompt, stdin, stderr)
      : await readFirstLine(stdin);
  const invite = text.trim();
  if (invite === '') throw noInvite();
  return invite;
}

/** The first line of a pipe or file (or all of it, without a newline). */
function readFirstLine(stdin: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const done = (value: string) => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.off('error', onError);
      // The rest is not read: a writer that keeps the pipe open must not keep papo waiting.
      stdin.pause();
      if ('destroy' in stdin && typeof stdin.destroy === 'function') stdin.destroy();
      resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      buffered += chunk.toString();
      const nl = buffered.search(/\r?\n/);
      if (nl >= 0) done(buffered.slice(0, nl));
      else if (buffered.length > MAX_INPUT) done('');
    };
    const onEnd = () => done(buffered);
    const onError = (err: Error) => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      reject(err);
    };
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('error', onError);
    stdin.resume();
  });
}

/**
 * A line typed at a terminal without echo. Enter ends it; Backspace erases; Ctrl-C and Ctrl-D on
 * an empty line give up (the caller reports that no invite was given). Nothing typed is written.
 */
function readHidden(prompt: string, stdin: Input, stderr: NodeJS.WritableStream): Promise<string> {
  return new Promise((resolve) => {
    // Echo off before the prompt shows, so nothing typed after it can appear.
    stdin.setRawMode?.(true);
    stderr.write(prompt);
    let line = '';
    const finish = (value: string) => {
      stdin.off('data', onData);
      stdin.off('end', onEnd);
      stdin.setRawMode?.(false);
      stdin.pause();
      stderr.write('\n');
      resolve(value);
    };
    const onData = (chunk: Buffer | string) => {
      for (const ch of chunk.toString()) {
        if (ch === '\r' || ch === '\n') return finish(line);
        if (ch === '\u0003') return finish('');
        if (ch === '\u0004') {
          if (line === '') return finish('');
          continue;
        }
        if (ch === '\u007f' || ch === '\b') {
          line = line.slice(0, -1);
          continue;
        }
        if (ch < ' ') continue; // other control characters, including the start of escape sequences
        if (line.length < MAX_INPUT) line += ch;
      }
    };
    const onEnd = () => finish(line); // the terminal went away
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.resume();
  });
}
