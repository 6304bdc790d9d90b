// Codex CLI's door: `codex queue --thread <id> --message <text>` (0.171.0, measured: ADR 0118,
// "Amended: Codex CLI"). It queues a turn into the thread's live terminal UI, which takes it 4-10 s
// later (after the current turn when busy), as if the person had typed it: papo's own frame is in
// the text (texts.ts, `pushedText`).
//
// Codex gives its MCP stdio children five variables (HOME, LANG, PATH, SHELL, TERM): no thread id,
// no CODEX_HOME. So papo reads them from the Codex process that started it (Linux, /proc): the
// thread is the one whose rollout file (`<CODEX_HOME>/sessions/YYYY/MM/DD/rollout-…-<uuid>.jsonl`)
// that process holds open, read at each push, because Codex opens it at the thread's first turn
// (before it, `codex queue` fails: "no rollout found") and a new thread (`/new`) opens another;
// CODEX_HOME is Codex's own (its environment, read for that name only), and `queue` runs with
// Codex's own executable. `codex exec` takes no queued turn (measured: `queue` exits 0, the run
// ends without it), so the door is closed there, never open to a message that is lost.
import { execFile } from 'node:child_process';
import {
  closeSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  readSync,
  statSync,
} from 'node:fs';
import { inertText } from '../../client/wire/inert-text.js';
import type { Door, PushRoute } from '../push-contract.js';
import { codexNotTui, messageCut, pushedText } from '../texts.js';
import { isClient } from './clients.js';

/** How long one `codex queue` may take (it answers in about 0.3 s). */
export const CODEX_QUEUE_TIMEOUT_MS = 20_000;

/** How often a push that waits for the thread's first turn looks for its rollout again. */
export const THREAD_POLL_MS = 1000;

/** Linux's limit on one argument (MAX_ARG_STRLEN: 32 pages, its NUL included). */
export const ARG_MAX_BYTES = 128 * 1024 - 1;

/** A rollout file of Codex's, and its thread's id (a UUID, the last part of the name). */
const ROLLOUT =
  /^(.*)\/sessions\/(?:[^/]+\/)*rollout-[^/]*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/;

/** Codex's subcommands (0.171.0 `codex --help`); a first word that is none of them is a prompt. */
const SUBCOMMANDS = new Set([
  'exec',
  'e',
  'review',
  'login',
  'logout',
  'mcp',
  'mcp-server',
  'plugin',
  'app-server',
  'remote-control',
  'completion',
  'update',
  'doctor',
  'sandbox',
  'debug',
  'apply',
  'a',
  'resume',
  'queue',
  'archive',
  'delete',
  'migrate-rollouts',
  'migrate-nfs-db',
  'unarchive',
  'fork',
  'cloud',
  'exec-server',
  'features',
  'help',
  'agents',
]);

/** The subcommands that run Codex's terminal UI, the only one that takes queued turns. */
const TUI_SUBCOMMANDS = new Set(['resume', 'fork', 'agents']);

/** Codex's global options that take a value in the next argument (`--name=value` takes none). */
const WITH_VALUE = new Set([
  '-c',
  '--config',
  '--enable',
  '--disable',
  '--remote',
  '--remote-auth-token-env',
  '-i',
  '--image',
  '-m',
  '--model',
  '--local-provider',
  '-p',
  '--profile',
  '-s',
  '--sandbox',
  '-C',
  '--cd',
  '--add-dir',
  '-a',
  '--ask-for-approval',
]);

/** The subcommand of a Codex command line (`exec`, `resume`…), or undefined for the terminal UI. */
export function codexSubcommand(args: string[]): string | undefined {
  for (let i = 1; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === '--') return undefined;
    if (arg.startsWith('-')) {
      if (WITH_VALUE.has(arg)) i++;
      continue;
    }
    return SUBCOMMANDS.has(arg) ? arg : undefined;
  }
  return undefined;
}

/** Where papo reads the Codex process's files: /proc, or a folder laid out as /proc (tests). */
export interface CodexProcess {
  pid: number;
  procRoot: string;
}

/** The files `pid` holds open (the targets of its fd links); none when it cannot be read. */
function openFiles({ pid, procRoot }: CodexProcess): string[] {
  const dir = `${procRoot}/${pid}/fd`;
  let fds: string[];
  try {
    fds = readdirSync(dir);
  } catch {
    return [];
  }
  const files: string[] = [];
  for (const fd of fds) {
    try {
      files.push(readlinkSync(`${dir}/${fd}`));
    } catch {
      // Closed in between.
    }
  }
  return files;
}

/** The beginning of a file (its first line holds the rollout's session_meta). */
function head(path: string, bytes: number): string {
  const buf = Buffer.alloc(bytes);
  const fd = openSync(path, 'r');
  try {
    return buf.subarray(0, readSync(fd, buf, 0, bytes, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** A thread Codex writes: its id and the CODEX_HOME its rollout lies in. */
export interface CodexThread {
  id: string;
  codexHome: string;
}

/**
 * The thread of the person's conversation in the Codex process: the rollout it holds open, or
 * undefined before the thread's first turn. With several (sub-agents write threads of their own),
 * the ones whose session_meta says `"thread_source":"user"`, then the one written last.
 */
export function codexThread(proc: CodexProcess): CodexThread | undefined {
  const found = new Map<string, CodexThread & { path: string }>();
  for (const file of openFiles(proc)) {
    const m = ROLLOUT.exec(file);
    if (m !== null) found.set(file, { id: m[2] as string, codexHome: m[1] as string, path: file });
  }
  let rollouts = [...found.values()];
  if (rollouts.length > 1) {
    const source = (path: string) => {
      try {
        return /"thread_source":"([a-z_]+)"/.exec(head(path, 16 * 1024))?.[1];
      } catch {
        return undefined;
      }
    };
    const users = rollouts.filter((r) => source(r.path) === 'user');
    if (users.length > 0) rollouts = users;
    const written = (path: string) => {
      try {
        return statSync(path).mtimeMs;
      } catch {
        return 0;
      }
    };
    rollouts.sort((a, b) => written(b.path) - written(a.path));
  }
  const thread = rollouts[0];
  return thread === undefined ? undefined : { id: thread.id, codexHome: thread.codexHome };
}

/** The Codex variables of its own environment that `codex queue` needs to find the same thread. */
const CODEX_VARS = ['CODEX_HOME', 'CODEX_SQLITE_HOME'] as const;

/** Those variables in the Codex process's environment (nothing else of it is kept: it holds keys). */
function codexVars({ pid, procRoot }: CodexProcess): Record<string, string> {
  const vars: Record<string, string> = {};
  let environ: string;
  try {
    environ = readFileSync(`${procRoot}/${pid}/environ`, 'utf8');
  } catch {
    return vars;
  }
  for (const entry of environ.split('\0')) {
    for (const name of CODEX_VARS)
      if (entry.startsWith(`${name}=`)) vars[name] = entry.slice(name.length + 1);
  }
  return vars;
}

/** The Codex executable to run `queue` with: the process's own (its file, or /proc's link to it when replaced). */
function codexExecutable({ pid, procRoot }: CodexProcess): string {
  const link = `${procRoot}/${pid}/exe`;
  try {
    const target = readlinkSync(link);
    return target.endsWith(' (deleted)') ? link : target;
  } catch {
    return link;
  }
}

/** The text as one argument: within ARG_MAX_BYTES, its end cut and said (texts.ts, messageCut). */
export function queuedText(text: string): string {
  if (Buffer.byteLength(text) <= ARG_MAX_BYTES) return text;
  // Room for the note (under 300 bytes); cut by characters, then by bytes until it fits.
  let keep = text.slice(0, ARG_MAX_BYTES - 1024);
  while (Buffer.byteLength(keep) > ARG_MAX_BYTES - 1024) keep = keep.slice(0, Math.floor(keep.length * 0.9));
  // Never half a surrogate pair.
  if (/[\ud800-\udbff]$/.test(keep)) keep = keep.slice(0, -1);
  return keep + messageCut(text.length - keep.length);
}

/** One line of what a failed `codex queue` said (its `Error:` line), inert and short. */
function failure(code: number | string | null | undefined, stderr: string): string {
  const said = stderr
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l.startsWith('Error:'));
  const why = said === undefined ? '' : `: ${inertText(said, 'line').slice(0, 300)}`;
  return `codex queue ${typeof code === 'number' ? `exited with ${code}` : `failed (${code ?? 'killed'})`}${why}`;
}

/** Runs `codex queue` once: resolves when it exits 0, rejects with one line otherwise. */
function runQueue(exe: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    execFile(
      exe,
      args,
      {
        env,
        timeout: CODEX_QUEUE_TIMEOUT_MS,
        killSignal: 'SIGKILL',
        maxBuffer: 1024 * 1024,
        windowsHide: true,
      },
      (err, _stdout, stderr) => {
        if (err === null) resolve();
        else if ((err as { killed?: boolean }).killed === true && err.code === null)
          reject(new Error(`codex queue did not end within ${CODEX_QUEUE_TIMEOUT_MS} ms`));
        else reject(new Error(failure(err.code, String(stderr))));
      },
    );
  });
}

/**
 * The route through `codex queue` into the terminal UI of the Codex process `proc`. Each push finds
 * the thread again (module comment); before the thread's first turn it waits for it, looking every
 * THREAD_POLL_MS, so a message that arrived before the person's first prompt is queued at it. The
 * pushes run one after the other, in order; after one failed, the next ones fail at once (the pump
 * hands them to its fallback). The text is never logged.
 */
export function codexQueueRoute(proc: CodexProcess, env: NodeJS.ProcessEnv): PushRoute {
  let last: Promise<void> = Promise.resolve();
  let broken: Error | undefined;
  const thread = async (): Promise<CodexThread> => {
    for (;;) {
      const found = codexThread(proc);
      if (found !== undefined) return found;
      if (!existsSync(`${proc.procRoot}/${proc.pid}`))
        throw new Error(`Codex (process ${proc.pid}) ended before its thread's first turn`);
      await new Promise((r) => setTimeout(r, THREAD_POLL_MS).unref());
    }
  };
  const queue = async (text: string): Promise<void> => {
    if (broken !== undefined) throw broken;
    try {
      const { id, codexHome } = await thread();
      const vars = { CODEX_HOME: codexHome, ...codexVars(proc) };
      await runQueue(codexExecutable(proc), ['queue', '--thread', id, '--message', queuedText(text)], {
        ...env,
        ...vars,
      });
    } catch (err) {
      broken = err instanceof Error ? err : new Error(String(err));
      throw broken;
    }
  };
  return {
    kind: 'codex-queue',
    push: (msg) => {
      const text = pushedText(msg, 'codex-queue');
      const done = last.then(() => queue(text));
      last = done.catch(() => {});
      return done;
    },
  };
}

/**
 * Codex's door, found among papo's ancestors (Linux: /proc): the nearest whose executable is
 * `codex`. Its terminal UI (`codex`, `codex resume`…) opens the door; another subcommand (`codex
 * exec`…) closes it, said in `status`. `procRoot` is where its files are read (tests: a folder).
 */
export function codexDoorAt(procRoot = '/proc'): Door {
  return ({ env, ancestors }) => {
    const codex = ancestors().find((a) => isClient('codex-queue', a.args));
    if (codex === undefined) return undefined;
    const sub = codexSubcommand(codex.args);
    if (sub !== undefined && !TUI_SUBCOMMANDS.has(sub))
      return { kind: 'codex-queue', off: { why: 'closed', detail: codexNotTui(sub) } };
    return { kind: 'codex-queue', route: codexQueueRoute({ pid: codex.pid, procRoot }, env) };
  };
}

export const codexDoor: Door = codexDoorAt();
