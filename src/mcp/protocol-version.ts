// MCP protocol revisions papo speaks (docs/mcp.md, "Protocol"). The newest comes first and is
// the answer to any revision papo does not know. 2026-07-28 is never negotiated: Claude Code does
// not register a server on that revision as a channel, so push would silently stop working.
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

export const LATEST_PROTOCOL_VERSION: ProtocolVersion = SUPPORTED_PROTOCOL_VERSIONS[0];

export function negotiateProtocolVersion(requested: string): ProtocolVersion {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(requested)
    ? (requested as ProtocolVersion)
    : LATEST_PROTOCOL_VERSION;
}
