// What every command needs from the global options and the environment.
import { papoHome } from '../client/store/home.js';
import { validateProfileName } from '../client/wire/names.js';
import { detectLang, type ErrorHints, errorText, type Lang, type Messages, messages } from './i18n.js';
import { chosenProfile } from './mcp-args.js';
import { type Styles, stylesFor } from './output.js';

export interface CliContext {
  /** --profile as the line gave it, read at action time (commander's program, or a line read without it). */
  profileFlag: () => string | undefined;
  env: NodeJS.ProcessEnv;
  /** Set by a command as it learns them, so an error can name the profile, the name or the home. */
  hints?: ErrorHints;
}

/** The profile the user chose: --profile, else PAPO_PROFILE, else "default". */
export function profileName(ctx: CliContext): string {
  return chosenProfile(ctx.profileFlag(), ctx.env);
}

/** The chosen profile name, checked (it becomes a folder name). Throws 'invalid_profile_name'. */
export function checkedProfile(ctx: CliContext): string {
  const profile = profileName(ctx);
  hint(ctx, { profile });
  return validateProfileName(profile);
}

export function home(ctx: CliContext): string {
  const dir = papoHome(ctx.env);
  hint(ctx, { home: dir });
  return dir;
}

export function lang(ctx: CliContext): Lang {
  return detectLang(ctx.env);
}

export function text(ctx: CliContext): Messages {
  return messages(lang(ctx));
}

export function styles(ctx: CliContext): Styles {
  return stylesFor(process.stdout, ctx.env);
}

/** " --profile p" to append to suggested commands, or "" for the default profile. */
export function profileSuffix(profile: string): string {
  return profile === 'default' ? '' : ` --profile ${profile}`;
}

export function hint(ctx: CliContext, more: ErrorHints): void {
  ctx.hints = { ...ctx.hints, ...more };
}

/**
 * Prints a failure as one line on stderr (no stack trace) and sets exit status 1: the one place a
 * command's failure becomes text (errorText). `language` overrides the person's, for `papo signal`.
 */
export function reportError(ctx: CliContext, err: unknown, language: Lang = lang(ctx)): void {
  process.stderr.write(`${messages(language).errorPrefix}${errorText(err, language, ctx.hints ?? {})}\n`);
  process.exitCode = 1;
}
