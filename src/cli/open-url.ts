// Opening an address in the person's browser (`papo web`), as each system does it. None of the
// commands goes through a shell: the address (papo web's opener file, a path the person's home
// names: ADR 0120) may hold an `&` or a space, and cmd.exe's `start` would read an `&` in it as
// the end of the command.

/** The command that opens `url` in the default browser on `platform`, with its arguments. */
export function openUrlCommand(url: string, platform: NodeJS.Platform): [string, string[]] {
  if (platform === 'darwin') return ['open', [url]];
  // What Windows' own "open with the default browser" runs; it takes the address as one argument.
  if (platform === 'win32') return ['rundll32.exe', ['url.dll,FileProtocolHandler', url]];
  // Linux and the BSDs (freedesktop), WSL too when xdg-utils is installed there.
  return ['xdg-open', [url]];
}
