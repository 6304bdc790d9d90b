// msgIdIn (tests/support/papo.ts) finds the id in every text where papo prints one, as papo's own
// formatters write them: a send result "(msg_id X)", a message header "[msg_id=X", history and
// papo log "(msg X, reply to Y)", papo say "(msg X)"; and nothing that is not 10 hex characters.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { messages } from '../../src/cli/i18n.js';
import { formatLogEntry } from '../../src/client/store/log-format.js';
import type { Envelope } from '../../src/client/wire/messages.js';
import { formatMessage } from '../../src/mcp/message-format.js';
import { delivered, deliveredToSome, inboxFull, notAcknowledged } from '../../src/mcp/texts.js';
import { msgIdIn } from '../support/papo.js';

const ID = '931b6edd4b';
const msg: Envelope = {
  id: ID,
  from: 'colega',
  node: 'f'.repeat(64),
  kind: 'agent',
  ts: Date.UTC(2026, 11, 1),
  body: 'see msg 3f9a1c07b2 too',
  reply_to: '3f9a1c07b2',
};

test('msgIdIn reads the id of each text papo prints one in', () => {
  const texts = {
    delivered: delivered('colega', ID),
    deliveredToSome: deliveredToSome(['colega'], ID, [{ name: 'terceiro', online: false }]),
    inboxFull: inboxFull('colega', ID),
    notAcknowledged: notAcknowledged(ID, []),
    'wait/inbox header': formatMessage(msg),
    'history/papo log': formatLogEntry({ ev: 'in', msg }),
    'papo say (en)': messages('en').deliveredTo('colega', ID),
    'papo say (pt)': messages('pt').deliveredTo('colega', ID),
  };
  for (const [what, text] of Object.entries(texts)) assert.equal(msgIdIn(text), ID, `${what}: ${text}`);
});

test('msgIdIn throws where there is no id, and does not take a longer hex run for one', () => {
  assert.throws(() => msgIdIn('No unread messages.'), /no msg_id/);
  assert.throws(() => msgIdIn(`msg_id ${'a'.repeat(12)}`), /no msg_id/);
  assert.throws(() => msgIdIn(`node=${'f'.repeat(64)}`), /no msg_id/);
});
