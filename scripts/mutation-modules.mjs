// What scripts/mutation.mjs mutates, one Stryker run per key, and the fast test files (under
// tests/, without `.test.ts`) that run against each mutant (ADR 0080). Only fast files: unit,
// store, vector and in-process member tests, never the NAT, chaos or agent-CLI ones. `nodeArgs`:
// given to node for each test file (a name pattern leaves out a file's slow end-to-end test).
export const modules = {
  'room-crypto': { mutate: ['src/client/wire/room-crypto.ts'], tests: ['wire/room-crypto'] },
  invite: {
    mutate: ['src/client/wire/invite.ts', 'src/client/wire/radix.ts'],
    tests: ['wire/invite', 'wire/radix'],
  },
  // With the times a frame may carry (ADR 0119).
  frames: {
    mutate: ['src/client/wire/frames.ts', 'src/client/wire/frame-time.ts'],
    tests: ['wire/frames', 'wire/frame-times', 'room/presence', 'room/catch-up'],
  },
  'frame-codec': {
    mutate: ['src/client/wire/frame-codec.ts'],
    tests: ['wire/frame-codec', 'wire/frame-times'],
  },
  // Which hellos and messages are signs of life: copies sealed again refused (ADR 0093).
  'signed-times': { mutate: ['src/client/room/signed-times.ts'], tests: ['room/signed-times'] },
  // Sealed attachments (ADR 0121): what another member says about a file, and the frames carrying it.
  'attach-codec': {
    mutate: [
      'src/client/attach/manifest.ts',
      'src/client/attach/ranges.ts',
      'src/client/attach/chunk-codec.ts',
    ],
    tests: ['attach/manifest', 'attach/ranges', 'attach/chunk-codec'],
  },
  // Where attachments wait on disk, and the sender's path check: links, changes, release.
  'attach-store': {
    mutate: ['src/client/attach/store.ts', 'src/client/attach/project-path.ts'],
    tests: ['attach/store', 'attach/project-path'],
  },
  'signal-seal': { mutate: ['src/client/net/signal-seal.ts'], tests: ['net/signal-seal'] },
  outbox: { mutate: ['src/client/store/outbox.ts'], tests: ['store/outbox'] },
  'inbox-store': {
    mutate: ['src/client/store/inbox-store.ts'],
    tests: ['store/inbox-store', 'store/profile-store'],
  },
  'durable-delivery': {
    mutate: ['src/client/room/durable-delivery.ts'],
    tests: ['member/group-rules', 'member/store-then-ack', 'member/durable-delivery'],
  },
  // The sending half of a person's say: a say run's own member, and the says handed to the agent.
  'memory-sender': {
    mutate: ['src/client/room/memory-sender.ts'],
    tests: ['room/memory-sender', 'member/group-rules', 'member/store-then-ack'],
  },
  // Who confirmed what this member sent, the one record of it (issue 41), and the first-ack waits.
  confirmations: {
    mutate: ['src/client/room/confirmations.ts'],
    tests: ['room/confirmations', 'room/memory-sender', 'member/group-rules'],
  },
  credentials: {
    // The reader view is the credential refusal's normalisation, shared with hold patterns (ADR 0095).
    mutate: ['src/mcp/credentials.ts', 'src/client/wire/reader-view.ts'],
    tests: ['mcp/credentials', 'mcp/credential-thresholds', 'attacks/credential-bypass', 'wire/reader-view'],
    // Not the bypass file's test that drives a real `papo mcp` (14 s; the tool's wiring, not the
    // detectors). The 48 KiB check of prefixes runs: it asserts the verdict only (its time is
    // bench/credentials.ts's). (node 20 also tries a pattern on the root test, named "<root>":
    // `[^<]` keeps it from matching, or the lookahead alone would let every test run.)
    nodeArgs: ['--test-name-pattern=^(?!the send tool of a real papo mcp)[^<]'],
  },
  'tool-args': { mutate: ['src/mcp/tool-args.ts'], tests: ['mcp/tool-args'] },
  'result-fit': { mutate: ['src/mcp/result-fit.ts'], tests: ['mcp/result-fit', 'mcp/texts'] },
  // The person's review gate (ADR 0081): the rules, review.json failing closed, decisions.
  review: {
    mutate: [
      'src/client/store/review-patterns.ts',
      'src/client/store/review-settings.ts',
      'src/client/store/review-gate.ts',
      'src/client/store/review-decisions.ts',
      'src/client/store/review-requests.ts',
      'src/client/store/review-held.ts',
      // The allow rules bound to the room's keys (ADR 0095).
      'src/client/room/review-binding.ts',
    ],
    tests: ['store/review', 'room/review-binding'],
  },
  // Names held by keys (ADR 0064, ADR 0092): impostors refused, no flood taking a name.
  'member-names': { mutate: ['src/client/room/member-names.ts'], tests: ['room/member-names'] },
  // The room member, the whole file (issue 41): its delivery paths (send, the person's handed says,
  // forget, acks and refusals under a name's key, name_taken, re-sends) and the rest (hellos,
  // frames dropped, presence, the heartbeat), on a recording transport; room-node-paths first, as
  // it reaches every line.
  'room-node': {
    mutate: ['src/client/room/room-node.ts'],
    tests: [
      'member/room-node-paths',
      'member/group-rules',
      'member/store-then-ack',
      'member/durable-delivery',
      'room/memory-sender',
    ],
  },
};
