// Loaded into every test process by scripts/run-tests.mjs (`--import`). When a test file has
// finished but something native still holds its event loop (node-datachannel keeps threads and
// thread-safe callbacks; about 1 run in 10 of the relay test left one behind), the file's process
// would never exit and node's test runner would wait for it forever. Two seconds after the file's
// last test, this ends the process with the status the tests gave it, and says so.
if (process.env.NODE_TEST_CONTEXT) {
  const { after } = await import('node:test');
  after(() => {
    setTimeout(() => {
      process.stderr.write(`exit guard: ${process.argv[1]} still had work holding its event loop; exiting\n`);
      process.exit(process.exitCode ?? 0);
    }, 2000).unref();
  });
}
