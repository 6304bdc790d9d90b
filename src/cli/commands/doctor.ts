// papo doctor [--json]: checks, for the profile, everything a room needs from this machine and this
// network (ADR 0072): the signal server (reachable, how fast, the token), the ICE servers it hands
// out, a STUN mapping and whether it changes per destination, a real TURN allocation per URL (given
// back at once), PAPO_ICE_POLICY, the agent CLIs' registration of papo and the variables that turn
// Claude Code's channels off. One line per check, a fix under each failure or warning, a summary;
// exit 0 only when no check failed, which includes "the room can work from here". It never joins
// the room and takes no lock: it runs beside the profile's papo mcp. Secrets are never printed.
import type { Command } from 'commander';
import { inertText } from '../../client/wire/inert-text.js';
import { type CliContext, checkedProfile, home, lang, reportError } from '../context.js';
import { checksFrom, type DoctorReport, gatherFacts } from '../doctor.js';
import { doctorTexts } from '../doctor-texts.js';
import { printLines } from '../output.js';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('doctor')
    .description(
      'check what the room needs from this machine and network: signal server, token, STUN, TURN, agent CLI',
    )
    .option('--json', 'print the checks as JSON (for scripts)')
    .action(async (opts: { json?: boolean }) => {
      try {
        const language = lang(ctx);
        const t = doctorTexts(language);
        const json = opts.json === true;
        const live = !json && process.stderr.isTTY === true;
        const progress = live
          ? (what: 'signal' | 'network' | 'clients') => process.stderr.write(`\r\u001b[K${t.progress(what)}`)
          : undefined;
        const facts = await gatherFacts({
          home: home(ctx),
          profile: checkedProfile(ctx),
          env: ctx.env,
          lang: language,
          cwd: process.cwd(),
          ...(progress ? { progress } : {}),
        });
        if (live) process.stderr.write('\r\u001b[K');
        const report = checksFrom(facts, language);
        if (json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        else printLines(renderReport(report, language));
        process.exitCode = report.ok ? 0 : 1;
      } catch (err) {
        reportError(ctx, err);
      }
    });
}

/** The checklist a person reads: status, label, one line; the fix indented under it; a summary. */
export function renderReport(report: DoctorReport, language: 'en' | 'pt'): string[] {
  const t = doctorTexts(language);
  const lines: string[] = [];
  for (const c of report.checks) {
    lines.push(`${t.status(c.status).padEnd(9)}${c.label.padEnd(16)}${inertText(c.text, 'line')}`);
    if (c.fix !== undefined) lines.push(`${' '.repeat(25)}${t.fixPrefix}${inertText(c.fix, 'line')}`);
  }
  lines.push('', t.summary(report.summary, report.ok, (report.ms / 1000).toFixed(1)));
  return lines;
}
