// `inbox` (docs/mcp.md, "Tools"): every unread message, without waiting.

import { NO_UNREAD } from '../texts.js';
import { deliver, type ToolDeps, type ToolImplementation, textResult } from './shared.js';

export function inboxTool(deps: ToolDeps): ToolImplementation<void> {
  return {
    parse: () => {},
    run: async (_, member, ctx) => {
      const unread = member.unread();
      if (unread.length === 0) return textResult(NO_UNREAD);
      return deliver(deps, member, unread, ctx.signal);
    },
  };
}
