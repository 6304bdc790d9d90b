// What a person's say must be before anything is sent, for `papo say` and papo web alike: one
// check, in the person's language, so that the page refuses what the command refuses with the
// command's words (issue 41, part 3).
import { PapoError } from '../../client/errors.js';
import { MAX_BODY_BYTES } from '../../client/person/person-say.js';
import { MESSAGE_ID_PATTERN, validateMemberName } from '../../client/wire/names.js';
import type { Messages } from '../i18n.js';

/** A say as typed: its text, and whom it is for and what it answers, when given. */
export interface SayInput {
  body: string;
  to?: string | undefined;
  replyTo?: string | undefined;
}

/**
 * The text to send (trimmed), or an error a person reads: an empty or too large text, a target
 * that is not a member name (the name's own PapoError), a reply to something that is not a message
 * id. Throws; the caller reports it as it reports any error.
 */
export function checkedSay(t: Messages, input: SayInput): string {
  const body = input.body.trim();
  if (body === '') throw new PapoError('usage', t.sayEmpty);
  if (Buffer.byteLength(body) > MAX_BODY_BYTES)
    throw new PapoError('usage', t.sayTooLarge(MAX_BODY_BYTES / 1024));
  if (input.to !== undefined) validateMemberName(input.to);
  if (input.replyTo !== undefined && !MESSAGE_ID_PATTERN.test(input.replyTo))
    throw new PapoError('usage', t.notAMessageId);
  return body;
}
