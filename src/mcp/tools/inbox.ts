// `inbox` (docs/mcp.md, "Tools"): every unread message, without waiting.

import { NO_UNREAD } from '../texts.js';
import { checkKnown } from '../tool-args.js';
import { TOOL_ARGUMENTS } from '../tool-list.js';
import { deliver, type ToolDeps, type ToolHandler, textResult, throwIfCancelled } from './shared.js';

export function inboxTool(deps: ToolDeps): ToolHandler {
  return async (args, ctx) => {
    checkKnown('inbox', args, TOOL_ARGUMENTS.inbox);
    const member = await deps.member(ctx.signal);
    throwIfCancelled(ctx.signal);
    const unread = member.unread();
    if (unread.length === 0) return textResult(NO_UNREAD);
    return deliver(deps, member, unread, ctx.signal);
  };
}
