// `--channels plugin:papo@papo`, the flag for a plugin on Anthropic's channels allowlist, which papo
// is not on: the pinned Claude Code starts, names the plugin as not on the allowlist and points to
// the development flag (measured on 2.1.332). Should papo ever be listed, or the flag be read
// otherwise, this test shows it. Skipped, with the reason, without Claude Code or tmux.
import { test } from 'node:test';
import { startFakeAnthropic } from './fake-anthropic.js';
import { type ClaudeCode, claudeCode, roomWithColleague, uiSkip } from './helpers/claude.js';
import { pluginUi } from './helpers/plugin.js';

const cc = claudeCode();
const skip = uiSkip(cc);

test('--channels plugin:papo@papo: Claude Code says papo is not on the approved channels allowlist and names the development flag', {
  skip,
}, async (t) => {
  const c = cc as ClaudeCode;
  const { early, room } = await roomWithColleague(t);
  const fake = await startFakeAnthropic([]);
  early.after(() => fake.close());
  const ui = await pluginUi(early, {
    cc: c,
    room,
    fake,
    args: ['--channels', 'plugin:papo@papo', '--permission-mode', 'default'],
  });
  await ui.until(/plugin:papo@papo · not on the approved channels allowlist/, 30_000);
  await ui.until(
    /plugin papo@papo is not on the approved channels allowlist \(use --dangerously-load-development-channels for local dev\)/,
    30_000,
  );
});
