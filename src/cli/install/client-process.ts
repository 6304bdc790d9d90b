// Finding and running the agent CLIs `papo install` registers papo with, on every system.
//
// On Windows npm installs a CLI as three files: `claude` (a sh script for Git Bash, which Windows
// cannot start), `claude.cmd` and `claude.ps1`; the native installers put a `claude.exe` on PATH.
// A .cmd file runs only through cmd.exe: Node refuses to start one without a shell since
// CVE-2024-27980 (EINVAL), and with `shell: true` it joins the arguments with spaces, unquoted, so
// a path with a space (C:\Users\Ana Maria\...) would reach the CLI in two pieces, an `&` would end
// the command there, and Node 24 warns that it does so (DEP0190). So the command line is made
// here, each word quoted for cmd.exe, and one cmd.exe would change even inside quotes is not run:
// the person is told why and runs the printed command.
import { spawnSync } from 'node:child_process';

/** The names to look for on PATH for the CLI called `name` on `platform`, in order. */
export function executableNames(name: string, platform: NodeJS.Platform): string[] {
  return platform === 'win32' ? [`${name}.exe`, `${name}.cmd`] : [name];
}

/**
 * A word as cmd.exe hands it on unchanged: as it is when it holds only plain characters, else in
 * double quotes (where spaces, `&`, `|`, `<`, `>` and parentheses are text); null when it holds a
 * character that acts even inside quotes (`%` and `!` expand variables, `"` ends the quotes, `^`
 * escapes, a line break ends the command).
 */
export function cmdWord(word: string): string | null {
  if (/["%!^\r\n\0]/.test(word)) return null;
  if (/^[A-Za-z0-9_./:@+\\-]+$/.test(word)) return word;
  // Backslashes just before the closing quote would escape it for the program's own reading of
  // its command line (the C runtime's rules): doubled, they stay backslashes.
  return `"${word.replace(/(\\+)$/, '$1$1')}"`;
}

/** How spawnSync runs `exe` with `args`: the command, its arguments, and whether through the shell. */
export interface ClientCommand {
  command: string;
  args: string[];
  shell: boolean;
}

/**
 * How to run `exe` with `args` on `platform`: directly, or for a Windows .cmd or .bat one command
 * line for cmd.exe (Node adds `cmd.exe /d /s /c "..."` around it); null when a word cannot pass
 * cmd.exe unchanged.
 */
export function clientCommand(
  exe: string,
  args: readonly string[],
  platform: NodeJS.Platform,
): ClientCommand | null {
  if (platform !== 'win32' || !/\.(?:cmd|bat)$/i.test(exe))
    return { command: exe, args: [...args], shell: false };
  const words: string[] = [];
  for (const word of [exe, ...args]) {
    const quoted = cmdWord(word);
    if (quoted === null) return null;
    words.push(quoted);
  }
  return { command: words.join(' '), args: [], shell: true };
}

/** What a run of the client gives back: as spawnSync's, its output as text. */
export interface ClientRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  error?: Error;
  /** Empty unless piped. */
  stdout: string;
  stderr: string;
}

export interface ClientRunOptions {
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdio: 'inherit' | ['ignore', 'ignore' | 'pipe', 'inherit' | 'pipe'];
  timeout?: number;
}

/** Runs the client at `exe` with `args` to its end (see clientCommand). */
export function runClient(exe: string, args: readonly string[], options: ClientRunOptions): ClientRun {
  const how = clientCommand(exe, args, process.platform);
  if (how === null) {
    const error = new Error(
      `an argument holds a character cmd.exe would change (" % ! ^ or a line break), so ${exe} was not run`,
    );
    return { status: null, signal: null, error, stdout: '', stderr: '' };
  }
  const r = spawnSync(how.command, how.args, {
    ...options,
    shell: how.shell,
    encoding: 'utf8',
    windowsHide: true,
  });
  return {
    status: r.status,
    signal: r.signal,
    ...(r.error ? { error: r.error } : {}),
    stdout: r.stdout ?? '',
    stderr: r.stderr ?? '',
  };
}
