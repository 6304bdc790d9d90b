// What each of the five tools does (docs/mcp.md, "Tools"), one module each under tools/, with what
// they share in tools/shared.ts. The handlers drive a RoomMember (src/client/member-api.ts) and
// return text results; they know nothing of JSON-RPC. A handler throws CallCancelled when its call
// was cancelled: the server then sends no response at all.

import type { ToolName } from './tool-list.js';
import { historyTool } from './tools/history.js';
import { inboxTool } from './tools/inbox.js';
import { sendTool } from './tools/send.js';
import type { ToolDeps, ToolHandler } from './tools/shared.js';
import { statusTool } from './tools/status.js';
import { waitTool } from './tools/wait.js';

export * from './tool-result.js';
export type { ToolDeps, ToolHandler } from './tools/shared.js';

export function createToolHandlers(deps: ToolDeps): Record<ToolName, ToolHandler> {
  return {
    send: sendTool(deps),
    wait: waitTool(deps),
    inbox: inboxTool(deps),
    history: historyTool(deps),
    status: statusTool(deps),
  };
}
