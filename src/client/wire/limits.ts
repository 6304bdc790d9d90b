// The room's size limits, in one place for every module that checks them (frames, the send tool,
// papo say), with no import of its own, so the MCP server's texts can quote them at start-up.

/** Largest message body, in UTF-8 bytes (docs/protocol.md, "Sealing"). */
export const MAX_BODY_BYTES = 48 * 1024;
/** Largest sealed frame on the wire. */
export const MAX_SEALED_FRAME_BYTES = 64 * 1024;
