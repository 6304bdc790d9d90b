// codex: filled in by the session that proves papo with the real client (issue 16).
import type { AgentClient } from './clients.js';

export const codex: AgentClient = {
  id: 'codex',
  label: 'codex',
  executables: ['codex'],
  scopes: ['user'],
  print() {
    return ['(not yet)'];
  },
  install() {
    throw new Error('papo install --client codex is not built yet');
  },
};
