// Colour for people, plain text for pipes: ANSI styles only when the stream is a terminal and
// NO_COLOR is not set to a non-empty value (https://no-color.org).

export interface Styles {
  bold(text: string): string;
  dim(text: string): string;
}

const plain: Styles = { bold: (t) => t, dim: (t) => t };
const ansi: Styles = {
  bold: (t) => `\u001b[1m${t}\u001b[22m`,
  dim: (t) => `\u001b[2m${t}\u001b[22m`,
};

export function stylesFor(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Styles {
  return stream.isTTY === true && !env.NO_COLOR ? ansi : plain;
}

/** Writes lines to stdout, each ended by a newline. */
export function printLines(lines: readonly string[]): void {
  if (lines.length > 0) process.stdout.write(`${lines.join('\n')}\n`);
}
