// A profile whose papo mcp held messages, written through the real store as papo mcp writes them:
// `papo new` and `papo review on` run as a person runs them, then the messages held.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { openMemberState } from '../../src/client/store/profile-store.js';
import type { Envelope } from '../../src/client/wire/messages.js';
import { tempDir } from './files.js';
import { cleanEnv, runPapo } from './papo.js';

/** A message of colega's agent with `id` and `body`, as it would be held. */
export function heldMessage(id: string, body: string): Envelope {
  return { id, from: 'colega', node: 'c'.repeat(64), kind: 'agent', ts: Date.now(), body };
}

export async function profileWithHeld(
  t: Parameters<typeof tempDir>[0],
  held: Envelope[],
): Promise<{
  home: string;
  dir: string;
  held: Envelope[];
  state: Awaited<ReturnType<typeof openMemberState>>;
}> {
  const home = join(tempDir(t, 'papo-review-'), 'home');
  const env = cleanEnv({ PAPO_HOME: home });
  assert.equal((await runPapo(['new', '--name', 'voce', '--signal', 'ws://127.0.0.1:9'], { env })).code, 0);
  assert.equal((await runPapo(['review', 'on'], { env })).code, 0);
  const dir = join(home, 'profiles', 'default');
  const state = await openMemberState(dir);
  for (const m of held) await state.addToHeld(m);
  return { home, dir, held, state };
}
