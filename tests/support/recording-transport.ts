// What the in-process tests of a RoomNode run it on (member/group-rules, member/room-node-paths):
// a transport whose links are a list the test sets, which records every frame the node sends, and
// into which the test emits what arrives (`link-message`, `link-open`, `link-close`); and the room's
// codecs, one per key, sealing and signing real frames. Nothing of the node is replaced.
import { EventEmitter } from 'node:events';
import type { LinkPath } from '../../src/client/member-api.js';
import type { TransportEvents } from '../../src/client/room/links.js';
import { FrameCodec } from '../../src/client/wire/frame-codec.js';
import type { Identity } from '../../src/client/wire/identity.js';

export class RecordingTransport extends EventEmitter<TransportEvents> {
  sent: { peer: string; data: Uint8Array }[] = [];
  constructor(public links: string[]) {
    super();
  }
  send(peer: string, data: Uint8Array): boolean {
    this.sent.push({ peer, data });
    return true;
  }
  neighbours(): string[] {
    return this.links;
  }
  path(): LinkPath | undefined {
    return 'direct';
  }
}

/** One room's codec per key, made once: `codecs(key)` seals and signs as that key's papo would. */
export function roomCodecs(roomKey: Uint8Array, topic: string): (key: Identity) => FrameCodec {
  const made = new Map<string, FrameCodec>();
  return (key) => {
    let codec = made.get(key.nodeId);
    if (!codec) {
      codec = new FrameCodec(roomKey, topic, key);
      made.set(key.nodeId, codec);
    }
    return codec;
  };
}
