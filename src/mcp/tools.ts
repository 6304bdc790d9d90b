// What each of the five tools does (docs/mcp.md, "Tools"), one module each under tools/, with what
// they share in tools/shared.ts, paired here with the names tool-list.ts declares. The handlers
// drive a RoomMember (src/client/member-api.ts) and return text results; they know nothing of
// JSON-RPC. A handler throws CallCancelled when its call was cancelled: the server then sends no
// response at all.

import { checkKnown } from './tool-args.js';
import { TOOL_ARGUMENTS, type ToolName } from './tool-list.js';
import { historyTool } from './tools/history.js';
import { inboxTool } from './tools/inbox.js';
import { sendTool } from './tools/send.js';
import {
  type ToolDeps,
  type ToolHandler,
  type ToolImplementation,
  throwIfCancelled,
} from './tools/shared.js';
import { statusTool } from './tools/status.js';
import { waitTool } from './tools/wait.js';

export { MemberUnavailable } from './tool-result.js';
export type { ToolHandler } from './tools/shared.js';

export function createToolHandlers(deps: ToolDeps): Record<ToolName, ToolHandler> {
  // Keyed by the declared names: a tool declared without an implementation does not compile.
  return {
    send: started('send', sendTool(deps), deps),
    wait: started('wait', waitTool(deps), deps),
    inbox: started('inbox', inboxTool(deps), deps),
    history: started('history', historyTool(), deps),
    status: started('status', statusTool(deps), deps),
  };
}

/**
 * A tool's call with the start every call shares, in this order: an argument the tool does not take
 * is refused, then the tool's own checks run, and only then does the member open, so that a bad
 * argument never waits for (or opens) the room; a call cancelled meanwhile goes no further.
 */
function started<P>(name: ToolName, tool: ToolImplementation<P>, deps: ToolDeps): ToolHandler {
  return async (args, ctx) => {
    checkKnown(name, args, TOOL_ARGUMENTS[name]);
    const parsed = tool.parse(args);
    const refused = tool.refuse?.(parsed) ?? null;
    if (refused !== null) return refused;
    const member = await deps.member(ctx.signal);
    throwIfCancelled(ctx.signal);
    return tool.run(parsed, member, ctx);
  };
}
