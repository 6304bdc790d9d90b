// `send` (docs/mcp.md, "Tools"): checks the arguments and the body (size, credentials, the send
// window), sends through the member, and gathers what texts.ts's `sendOutcome` words.

import { messageOf } from '../../client/errors.js';
import type { RoomMember, SendResult } from '../../client/member-api.js';
import { sameName } from '../../client/wire/names.js';
import { findCredential } from '../credentials.js';
import { LIMITS, SEND_ERRORS, type SendOutcome, sendOutcome } from '../texts.js';
import { type Args, ArgumentError, MEMBER_NAME, MSG_ID, optionalString } from '../tool-args.js';
import {
  errorResult,
  linkingNames,
  networkView,
  reviewersAmong,
  type ToolContext,
  type ToolDeps,
  type ToolImplementation,
  type ToolResult,
  textResult,
  throwIfCancelled,
  trustView,
} from './shared.js';

interface SendArgs {
  body: string;
  to: string | undefined;
  replyTo: string | undefined;
}

export function sendTool(deps: ToolDeps): ToolImplementation<SendArgs> {
  return { parse, refuse, run };

  function parse(args: Args): SendArgs {
    if (args.message === undefined || args.message === null)
      throw new ArgumentError(SEND_ERRORS.missingMessage);
    const raw = optionalString(args, 'message', SEND_ERRORS.notAString('message')) as string;
    const body = raw.trim();
    if (body === '') throw new ArgumentError(SEND_ERRORS.empty);
    const bytes = Buffer.byteLength(body, 'utf8');
    if (bytes > LIMITS.maxMessageBytes) throw new ArgumentError(SEND_ERRORS.tooLarge(bytes));
    const to = optionalString(args, 'to', SEND_ERRORS.notAString('to'))?.trim();
    if (to !== undefined && !MEMBER_NAME.test(to)) throw new ArgumentError(SEND_ERRORS.invalidTo(to));
    const replyTo = optionalString(args, 'reply_to', SEND_ERRORS.notAString('reply_to'))
      ?.trim()
      .toLowerCase();
    if (replyTo !== undefined && !MSG_ID.test(replyTo))
      throw new ArgumentError(SEND_ERRORS.invalidReplyTo(replyTo));
    return { body, to, replyTo };
  }

  function refuse({ body }: SendArgs): ToolResult | null {
    const credential = findCredential(body);
    return credential === null ? null : errorResult(SEND_ERRORS.credential(credential.kind));
  }

  async function run(
    { body, to, replyTo }: SendArgs,
    member: RoomMember,
    ctx: ToolContext,
  ): Promise<ToolResult> {
    // Answering a message that only a push could have shown proves pushes reach the model (ADR 0066).
    if (replyTo !== undefined) await deps.channel.replied(replyTo);
    throwIfCancelled(ctx.signal);
    if (!deps.sendWindow.tryTake()) return errorResult(SEND_ERRORS.rateLimited(deps.sendWindow.max));
    const unknownTo = to !== undefined && !member.members().some((m) => sameName(m.name, to));
    let result: SendResult;
    try {
      result = await member.send(
        { body, ...(to === undefined ? {} : { to }), ...(replyTo === undefined ? {} : { replyTo }) },
        deps.ackTimeoutMs,
      );
    } catch (err) {
      return errorResult(SEND_ERRORS.failed(messageOf(err)));
    }
    // Answering implies having seen that message and the sender's earlier ones (docs/mcp.md,
    // "Tools").
    if (replyTo !== undefined) await member.markRepliedTo(replyTo);
    return textResult(sendOutcome(await outcomeOf(member, result, to, unknownTo)));
  }
}

/** What the send came to: who has it, who refused it, or why nobody confirmed. */
async function outcomeOf(
  member: RoomMember,
  result: SendResult,
  to: string | undefined,
  unknownTo: boolean,
): Promise<SendOutcome> {
  const msgId = result.id;
  const owed = result.owed ?? [];
  if (result.ackedBy !== null) {
    const acked = result.acked !== undefined && result.acked.length > 0 ? result.acked : [result.ackedBy];
    const online = member.onlineNames();
    const linking = owed.length > 0 ? linkingNames(member, await networkView(member)) : [];
    return {
      kind: 'delivered',
      msgId,
      acked,
      later: owed.map((name) => ({
        name,
        online: online.some((o) => sameName(o, name)),
        ...(linking.some((l) => sameName(l, name)) ? { linking: true } : {}),
      })),
      // Those who have it and whose person reads it first (ADR 0081): an answer can take longer.
      reviewers: reviewersAmong(member, (name) => acked.some((a) => sameName(a, name))),
    };
  }
  if (result.refusedBy !== null) {
    const by = result.refusedBy;
    return {
      kind: 'refused',
      msgId,
      by,
      reviews: reviewersAmong(member, (name) => sameName(name, by)).length > 0,
    };
  }
  const trust = trustView(member);
  const network = await networkView(member);
  const linking = linkingNames(member, network);
  return {
    kind: 'queued',
    msgId,
    online: member.onlineNames(),
    ...(linking.length > 0 ? { linking } : {}),
    to,
    unknownTo,
    owed,
    trust,
    network,
  };
}
