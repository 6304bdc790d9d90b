// Where a member meets the room: which signal server, which topic, under which peer id, with the
// key that seals what the server carries, and what lets it in (a token, the pin of the server's
// key). It is declared here alone, so that a new field is one edit (and where the transport's
// first IPC message names its fields one by one, the compiler asks for it): the signal client and
// the network stack take it with their own settings beside it, the member's process hands it to
// its transport, and that message carries it with the key in hex (transport-wire.ts).

export interface RoomMeeting {
  /** The room's signal URL: ws://, wss://, http:// or https:// (mapped to ws/wss), any path prefix. */
  url: string;
  /** The room's topic, 64 lower-case hex. */
  topic: string;
  /** Our peer id on the topic, 64 lower-case hex. */
  localId: string;
  /** The room's signal key (32 bytes), for sealing and opening blobs. */
  signalKey: Uint8Array;
  /** Bearer token for servers that require one (bound to this URL's origin: signal-token.ts). */
  token?: string | undefined;
  /**
   * The pin of the server's key, from the room's signal address (ADR 0089): over wss:// the
   * server is trusted when its key has it (a self-signed certificate included), and refused with
   * the problem `pin_mismatch` before the upgrade (and its token) is sent when it has not. TURN
   * over TLS to the same host is held to it too (turn-tcp-bridge.ts).
   */
  pin?: string | undefined;
}
