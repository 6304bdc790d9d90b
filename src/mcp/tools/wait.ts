// `wait` (docs/mcp.md, "Tools"): returns the unread messages wanted at once, or waits for one
// until its time runs out, reporting progress meanwhile (ADR 0067); what it wants is not pushed
// while it runs (ADR 0066).

import type { RoomMember } from '../../client/member-api.js';
import type { Envelope } from '../../client/wire/messages.js';
import { sameName } from '../../client/wire/names.js';
import { LIMITS, networkWarnings, noNewMessages, WAIT_ERRORS } from '../texts.js';
import {
  type Args,
  ArgumentError,
  MEMBER_NAME,
  optionalInteger,
  optionalString,
  shownValue,
} from '../tool-args.js';
import {
  deliver,
  linkingNames,
  networkView,
  reviewersAmong,
  type ToolContext,
  type ToolDeps,
  type ToolImplementation,
  type ToolResult,
  textResult,
  throwIfCancelled,
} from './shared.js';

interface WaitArgs {
  seconds: number;
  from: string | undefined;
  started: number;
  deadline: number;
}

export function waitTool(deps: ToolDeps): ToolImplementation<WaitArgs> {
  return { parse, run };

  function parse(args: Args): WaitArgs {
    const seconds = optionalInteger(
      args,
      'timeout_seconds',
      LIMITS.waitMinSeconds,
      LIMITS.waitMaxSeconds,
      LIMITS.waitDefaultSeconds,
      WAIT_ERRORS.timeout,
    );
    const from = optionalString(args, 'from', WAIT_ERRORS.invalidFrom(shownValue(args.from)))?.trim();
    if (from !== undefined && !MEMBER_NAME.test(from)) throw new ArgumentError(WAIT_ERRORS.invalidFrom(from));
    // The time counts from the call, as the client counts it (Claude Code moves a call still
    // running after 2 minutes to the background, ADR 0067), also while the member is opening: so
    // it starts here, the last step before the member's open.
    const started = Date.now();
    return { seconds, from, started, deadline: started + seconds * 1000 };
  }

  async function run(
    { seconds, from, started, deadline }: WaitArgs,
    member: RoomMember,
    ctx: ToolContext,
  ): Promise<ToolResult> {
    const wanted = (m: Envelope) => from === undefined || sameName(m.from, from);
    const matching = () => member.unread().filter(wanted);
    // While this call is in flight, what it wants comes to it and is not pushed: the model is
    // inside this call and reads a push only after it (ADR 0066). What it does not return is
    // pushed when it ends.
    const claim = deps.channel.claim(wanted);
    try {
      return await waitLoop();
    } finally {
      claim.release();
    }
    async function waitLoop(): Promise<ToolResult> {
      for (;;) {
        throwIfCancelled(ctx.signal);
        const ready = matching();
        // Unread messages already waiting are returned at once. Until pushes are known to reach the
        // model, one of them may have been pushed before: its header says so (ADR 0066).
        if (ready.length > 0) return deliver(deps, member, ready, ctx.signal);
        const left = deadline - Date.now();
        if (left <= 0) {
          // Why nothing came, when the network is the reason (issue 40): those on the signal
          // server papo is still linking to, and the same warnings as `status`.
          const network = await networkView(member);
          const text = noNewMessages(
            seconds,
            member.onlineNames(),
            from,
            {
              reviewers: reviewersAmong(member, (name) => from === undefined || sameName(name, from)),
              held: member.held().length,
              reviewing: member.reviewing(),
            },
            linkingNames(member, network),
          );
          return textResult([text, ...networkWarnings(network)].join('\n'));
        }
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            clearInterval(ticker);
            member.off('message', onMessage);
            ctx.signal.removeEventListener('abort', done);
            resolve();
          };
          const onMessage = (m: Envelope) => {
            if (from === undefined || sameName(m.from, from)) done();
          };
          const timer = setTimeout(done, left);
          // notifications/progress keeps Claude Code's idle timer from ending a long wait.
          const ticker = setInterval(() => {
            // Fractional seconds: MCP requires progress to increase with every notification.
            ctx.progress?.((Date.now() - started) / 1000, seconds);
          }, deps.progressIntervalMs);
          member.on('message', onMessage);
          ctx.signal.addEventListener('abort', done);
        });
      }
    }
  }
}
