// An agent CLI's terminal UI in a tmux server of its own, for the tests that drive one (Claude
// Code, Qwen Code, Codex): its socket is in the test's folder, so killing that server ends only
// this test's client, and nothing is left in /tmp/tmux-*. Each client's class starts its command
// and says how it is stopped; the pane's screen, keys and waits are here.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export class TmuxPane {
  protected readonly socket: string;

  /** `session`: the tmux session's name; `socketName`: the socket's file in `folder`. */
  constructor(
    protected readonly env: NodeJS.ProcessEnv,
    protected readonly cwd: string,
    folder: string,
    protected readonly session: string,
    socketName = 'tmux.sock',
  ) {
    this.socket = join(folder, socketName);
  }

  protected tmux(args: string[]): string {
    // The server starts with this environment, and the session's command inherits it.
    const r = spawnSync('tmux', ['-S', this.socket, ...args], {
      env: this.env,
      encoding: 'utf8',
      timeout: 10_000,
    });
    if (r.status !== 0) throw new Error(`tmux ${args[0]}: ${r.stderr}`);
    return r.stdout;
  }

  /** Runs `command` in a 200x50 terminal, in `cwd`. */
  protected open(command: string[]): void {
    this.tmux(['new-session', '-d', '-s', this.session, '-x', '200', '-y', '50', '-c', this.cwd, ...command]);
  }

  /** What the terminal shows now. */
  screen(): string {
    return this.tmux(['capture-pane', '-p', '-t', this.session]);
  }

  keys(...keys: string[]): void {
    this.tmux(['send-keys', '-t', this.session, ...keys]);
  }

  /** Polls the screen until it matches. */
  async until(pattern: RegExp, timeoutMs: number): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    while (Date.now() < deadline) {
      last = this.screen();
      if (pattern.test(last)) return last;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`the screen never showed ${pattern}; it shows:\n${last}`);
  }

  /** The process id of the pane's command; NaN when there is no session (never started, or ended). */
  protected panePid(): number {
    try {
      return Number(this.tmux(['display-message', '-p', '-t', this.session, '#{pane_pid}']).trim());
    } catch {
      return Number.NaN;
    }
  }

  /** Ends the tmux server (and so hangs the pane's command up). */
  protected killServer(): void {
    spawnSync('tmux', ['-S', this.socket, 'kill-server'], { env: this.env, timeout: 10_000 });
  }
}

/** Is `pid` running (a zombie, State Z, writes nothing either)? */
export function alive(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

/** Waits up to 10 s for `pids` to end, then kills those left (SIGKILL). */
export async function untilGone(pids: number[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (pids.some(alive) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  for (const pid of pids.filter(alive)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
  }
}
