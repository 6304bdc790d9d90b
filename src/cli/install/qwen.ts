// qwen: filled in by the session that proves papo with the real client (issue 16).
import type { AgentClient } from './clients.js';

export const qwen: AgentClient = {
  id: 'qwen',
  label: 'qwen',
  executables: ['qwen'],
  scopes: ['user'],
  print() {
    return ['(not yet)'];
  },
  install() {
    throw new Error('papo install --client qwen is not built yet');
  },
};
