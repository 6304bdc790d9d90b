// What scripts/mutation.mjs mutates, one Stryker run per key, and the fast test files (under
// tests/, without `.test.ts`) that run against each mutant (ADR 0080). Only fast files: unit,
// store, vector and in-process member tests, never the NAT, chaos or agent-CLI ones.
export const modules = {
  'room-crypto': { mutate: ['src/client/room-crypto.ts'], tests: ['unit/room-crypto'] },
  invite: { mutate: ['src/client/invite.ts'], tests: ['unit/invite'] },
  frames: { mutate: ['src/client/frames.ts'], tests: ['unit/frames', 'unit/presence', 'unit/catch-up'] },
  'frame-codec': { mutate: ['src/client/frame-codec.ts'], tests: ['unit/frame-codec'] },
  'signal-seal': { mutate: ['src/client/signal-seal.ts'], tests: ['link/signal-seal'] },
  outbox: { mutate: ['src/client/outbox.ts'], tests: ['unit/outbox'] },
  'inbox-store': {
    mutate: ['src/client/inbox-store.ts'],
    tests: ['store/inbox-store', 'store/profile-store'],
  },
  'durable-delivery': {
    mutate: ['src/client/durable-delivery.ts'],
    tests: ['node/group-rules', 'node/store-then-ack'],
  },
  'ephemeral-delivery': {
    mutate: ['src/client/ephemeral-delivery.ts'],
    tests: ['node/group-rules', 'node/store-then-ack'],
  },
  credentials: { mutate: ['src/mcp/credentials.ts'], tests: ['mcp/credentials'] },
  'tool-args': { mutate: ['src/mcp/tool-args.ts'], tests: ['mcp/tool-args'] },
  'result-fit': { mutate: ['src/mcp/result-fit.ts'], tests: ['mcp/result-fit', 'mcp/texts'] },
};
