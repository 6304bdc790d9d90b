// gemini: filled in by the session that proves papo with the real client (issue 16).
import type { AgentClient } from './clients.js';

export const gemini: AgentClient = {
  id: 'gemini',
  label: 'gemini',
  executables: ['gemini'],
  scopes: ['user'],
  print() {
    return ['(not yet)'];
  },
  install() {
    throw new Error('papo install --client gemini is not built yet');
  },
};
