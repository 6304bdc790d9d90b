// `history` (docs/mcp.md, "Tools"): the recent conversation in papo's log format, read-only.

import { formatLogEntry, reviewStates } from '../../client/store/log-format.js';
import { fitLines } from '../result-fit.js';
import {
  HISTORY_ERRORS,
  HISTORY_HELD,
  HISTORY_NOTICE,
  HISTORY_REJECTED,
  LIMITS,
  NO_HISTORY,
} from '../texts.js';
import { optionalInteger } from '../tool-args.js';
import { type ToolImplementation, textResult, throwIfCancelled } from './shared.js';

export function historyTool(): ToolImplementation<number> {
  return {
    parse: (args) =>
      optionalInteger(
        args,
        'limit',
        LIMITS.historyMin,
        LIMITS.historyMax,
        LIMITS.historyDefault,
        HISTORY_ERRORS.limit,
      ),
    run: async (limit, member, ctx) => {
      const entries = await member.history(limit);
      throwIfCancelled(ctx.signal);
      if (entries.length === 0) return textResult(NO_HISTORY);
      const fromOthers = entries.some((e) => e.ev === 'in');
      // What the person has not approved shows as held or rejected, without its text; the decisions
      // themselves are the person's, not lines of the conversation (ADR 0081).
      const review = reviewStates(entries);
      const lines: string[] = [];
      for (const e of entries) {
        if (e.ev === 'review') continue;
        const state = e.ev === 'in' ? review.get(e.msg.id) : undefined;
        const mark =
          state === 'held'
            ? { note: HISTORY_HELD, body: false }
            : state === 'rejected'
              ? { note: HISTORY_REJECTED, body: false }
              : undefined;
        lines.push(formatLogEntry(e, member.name, mark));
      }
      return textResult(fitLines(lines, LIMITS.maxResultChars, fromOthers ? HISTORY_NOTICE : ''));
    },
  };
}
