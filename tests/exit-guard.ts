// Loaded into every test process by scripts/run-tests.mjs (`--import`). When a test file has
// finished but something native still holds its event loop (node-datachannel keeps threads and
// thread-safe callbacks; about 1 run in 10 of the relay test left one behind), the file's process
// would never exit and node's test runner would wait for it forever. Fifteen seconds after the
// file's last test, this ends the process with the status the tests gave it, and says so. (The
// file's own `after` hooks run after this one: the delay leaves them time to close what they
// opened; a shorter one cut a slow cleanup short.)
if (process.env.NODE_TEST_CONTEXT) {
  // A test process whose main thread a native deadlock froze (ADR 0055) can run neither its
  // timeouts nor the guard below; the watchdog ends it so that the run goes on and reports it.
  // Only a process that loaded node-datachannel: the CLI tests hold their main thread for long
  // runs of synchronous `papo` commands, which on a loaded machine passed 90 s (CI, 2026-12-01).
  const { startNativeWatchdog } = await import('./support/native-watchdog.js');
  startNativeWatchdog({ stallSeconds: 90, label: `exit guard: ${process.argv[1]}`, onlyWithNative: true });
  const { after } = await import('node:test');
  after(() => {
    setTimeout(() => {
      // What held it, to find the test that did not close something.
      const handles = (process as unknown as { _getActiveHandles(): object[] })
        ._getActiveHandles()
        .map((h) => h.constructor.name);
      process.stderr.write(
        `exit guard: ${process.argv[1]} still had work holding its event loop (${handles.join(', ')}); exiting\n`,
      );
      process.exit(process.exitCode ?? 0);
    }, 15_000).unref();
  });
}
