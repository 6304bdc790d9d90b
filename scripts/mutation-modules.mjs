// What scripts/mutation.mjs mutates, one Stryker run per key, and the fast test files (under
// tests/, without `.test.ts`) that run against each mutant (ADR 0080). Only fast files: unit,
// store, vector and in-process member tests, never the NAT, chaos or agent-CLI ones. `nodeArgs`:
// given to node for each test file (a name pattern leaves out a file's slow end-to-end test).
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
    tests: ['node/group-rules', 'node/store-then-ack', 'node/durable-delivery'],
  },
  'ephemeral-delivery': {
    mutate: ['src/client/ephemeral-delivery.ts'],
    tests: ['node/group-rules', 'node/store-then-ack'],
  },
  credentials: {
    mutate: ['src/mcp/credentials.ts'],
    tests: ['mcp/credentials', 'mcp/credential-thresholds', 'attacks/credential-bypass'],
    // Not the bypass file's test that drives a real `papo mcp` (14 s; the tool's wiring, not the
    // detectors). The 48 KiB check of prefixes runs: it asserts the verdict only (its time is
    // bench/credentials.ts's). (node 20 also tries a pattern on the root test, named "<root>":
    // `[^<]` keeps it from matching, or the lookahead alone would let every test run.)
    nodeArgs: ['--test-name-pattern=^(?!the send tool of a real papo mcp)[^<]'],
  },
  'tool-args': { mutate: ['src/mcp/tool-args.ts'], tests: ['mcp/tool-args'] },
  'result-fit': { mutate: ['src/mcp/result-fit.ts'], tests: ['mcp/result-fit', 'mcp/texts'] },
  // The person's review gate (ADR 0081): the rules, review.json failing closed, decisions.
  review: { mutate: ['src/client/review.ts'], tests: ['store/review'] },
};
