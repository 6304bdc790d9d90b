// opencode: filled in by the session that proves papo with the real client (issue 16).
import type { AgentClient } from './clients.js';

export const opencode: AgentClient = {
  id: 'opencode',
  label: 'opencode',
  executables: ['opencode'],
  scopes: ['user'],
  print() {
    return ['(not yet)'];
  },
  install() {
    throw new Error('papo install --client opencode is not built yet');
  },
};
