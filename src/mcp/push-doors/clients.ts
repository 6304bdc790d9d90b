// How papo tells which agent client a process is, from its command line: the doors look for their
// client among papo's ancestors, and the route choice prefers the nearest client's door.
import type { DoorKind } from '../push-contract.js';

/** The executables of each client (the first argument, or the script a `node` runs). */
const CLIENT_EXE: Record<DoorKind, RegExp> = {
  'claude-session': /(?:^|\/)claude(?:\.exe)?$/,
  'qwen-session': /(?:^|\/)qwen(?:\.js)?$|@qwen-code\/qwen-code\//,
  'codex-queue': /(?:^|\/)codex(?:\.exe)?$/,
};

/** Is this command line the client of `kind` (its executable, or the script node runs)? */
export function isClient(kind: DoorKind, args: string[]): boolean {
  const exe = CLIENT_EXE[kind];
  const [first = '', second = ''] = args;
  return exe.test(first) || (/(?:^|\/)node(?:\.exe)?$/.test(first) && exe.test(second));
}
