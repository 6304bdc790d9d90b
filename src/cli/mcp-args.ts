// The command lines an agent CLI starts papo's MCP server with, read without commander (issue
// 28): `papo mcp` answers `initialize` while its client waits, and commander with the CLI's texts
// is a third of what it loaded before that answer. Only the shapes `papo install`, the plugin and
// the docs write are read here — `[--profile P] mcp [--about TEXT] [--profile P]`, each option
// also as `--opt=value`, the last one winning as in commander —; any other line (help, a version,
// an unknown option, a missing value) is left to commander, which answers it as it always has.
// `papo say`'s plain lines are read the same way (sayArgs): a person's quick word, where commander
// is a fifth of a say handed to the running papo mcp (ADR 0109).

export interface McpArgs {
  /** --profile's value, when given. */
  profile?: string;
  /** --about's value, when given (checked by the caller, as the command's action does). */
  about?: string;
}

/** The MCP server's arguments in `args` (process.argv after the script), or undefined. */
export function mcpArgs(args: readonly string[]): McpArgs | undefined {
  const out: McpArgs = {};
  let command = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (arg === 'mcp' && !command) {
      command = true;
      continue;
    }
    const { name, value, separate, next } = optionAt(args, i);
    // --profile is the program's, on either side of the command; --about is the command's own.
    if (name !== '--profile' && !(name === '--about' && command)) return undefined;
    // After a separate --about commander reads a program option (`--about --profile p`,
    // `--about -V`): its call.
    if (value === undefined || (separate && name === '--about' && value.startsWith('-'))) return undefined;
    i = next;
    if (name === '--profile') out.profile = value;
    else out.about = value;
  }
  return command ? out : undefined;
}

/** What a plain `papo say` line says: `[--profile P] say WORD... ` with --to/--profile among the words. */
export interface SayArgs {
  profile?: string;
  to?: string;
  words: string[];
}

/**
 * The say in `args`, or undefined for commander: words are the arguments that do not start with
 * '-'; --to and --profile (with their value next or after '=', never one that starts with '-',
 * which commander may read as an option) may stand among them; anything else starting with '-'
 * (help, `--`, an unknown option) and a line without words are commander's to answer.
 */
export function sayArgs(args: readonly string[]): SayArgs | undefined {
  const out: SayArgs = { words: [] };
  let command = false;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('-')) {
      if (command) out.words.push(arg);
      else if (arg === 'say') command = true;
      else return undefined;
      continue;
    }
    const { name, value, next } = optionAt(args, i);
    if (name !== '--profile' && !(name === '--to' && command)) return undefined;
    if (value === undefined || value.startsWith('-')) return undefined;
    i = next;
    if (name === '--profile') out.profile = value;
    else out.to = value;
  }
  return command && out.words.length > 0 ? out : undefined;
}

/**
 * The option at `args[i]`, as commander reads one that takes a value: `--name=value`, or `--name`
 * and the next argument (`separate`); `next` is the index of the last argument it took.
 */
function optionAt(
  args: readonly string[],
  i: number,
): { name: string; value: string | undefined; separate: boolean; next: number } {
  const arg = args[i] as string;
  const eq = arg.indexOf('=');
  return eq === -1
    ? { name: arg, value: args[i + 1], separate: true, next: i + 1 }
    : { name: arg.slice(0, eq), value: arg.slice(eq + 1), separate: false, next: i };
}

/** The profile's name as every command chooses it: --profile, else PAPO_PROFILE, else "default". */
export function chosenProfile(flag: string | undefined, env: NodeJS.ProcessEnv): string {
  return flag ?? (env.PAPO_PROFILE || 'default');
}
