// The five tools as tools/list shows them (docs/mcp.md, "Tools"), each declared once: its name,
// description, input schema and annotations. The names and each tool's arguments are read from
// these declarations, and tools.ts pairs each name with its handler. The declarations stay apart
// from the handlers so that `tools/list` is answered without loading them (ADR 0107). The JSON is
// pinned by tests/mcp/snapshots/tools-list.json: a change here is a change the model sees, so it is
// reviewed. Schemas are plain draft 2020-12 objects with no combinators at the root (Claude Code
// drops tools whose schema the API refuses).
import { LIMITS, PARAM_DESCRIPTIONS, TOOL_DESCRIPTIONS } from './texts.js';

const noArguments = { type: 'object', properties: {}, additionalProperties: false } as const;

export const TOOLS = [
  {
    name: 'send',
    description: TOOL_DESCRIPTIONS.send,
    inputSchema: {
      type: 'object',
      properties: {
        message: { type: 'string', description: PARAM_DESCRIPTIONS.send.message },
        to: { type: 'string', description: PARAM_DESCRIPTIONS.send.to },
        reply_to: { type: 'string', description: PARAM_DESCRIPTIONS.send.reply_to },
      },
      required: ['message'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  {
    name: 'wait',
    description: TOOL_DESCRIPTIONS.wait,
    inputSchema: {
      type: 'object',
      properties: {
        timeout_seconds: {
          type: 'integer',
          minimum: LIMITS.waitMinSeconds,
          maximum: LIMITS.waitMaxSeconds,
          default: LIMITS.waitDefaultSeconds,
          description: PARAM_DESCRIPTIONS.wait.timeout_seconds,
        },
        from: { type: 'string', description: PARAM_DESCRIPTIONS.wait.from },
      },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  {
    name: 'inbox',
    description: TOOL_DESCRIPTIONS.inbox,
    inputSchema: noArguments,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  },
  {
    name: 'history',
    description: TOOL_DESCRIPTIONS.history,
    inputSchema: {
      type: 'object',
      properties: {
        limit: {
          type: 'integer',
          minimum: LIMITS.historyMin,
          maximum: LIMITS.historyMax,
          default: LIMITS.historyDefault,
          description: PARAM_DESCRIPTIONS.history.limit,
        },
      },
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: 'status',
    description: TOOL_DESCRIPTIONS.status,
    inputSchema: noArguments,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  },
] as const;

export type ToolName = (typeof TOOLS)[number]['name'];

export const TOOL_NAMES: readonly ToolName[] = TOOLS.map((tool) => tool.name);

export function isToolName(name: string): name is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(name);
}

/**
 * The arguments each tool takes, for validation: the properties of its input schema, in the order
 * the schema lists them (the unknown-argument error names them in that order).
 */
export const TOOL_ARGUMENTS = {} as Record<ToolName, readonly string[]>;
for (const tool of TOOLS) TOOL_ARGUMENTS[tool.name] = Object.keys(tool.inputSchema.properties);
