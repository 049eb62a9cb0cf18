/** Text styles for one stream; identity functions when colour is off, chalk when it is on. */
export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

const identity = (text: string): string => text;

/** The style used when colour is off. */
export const PLAIN: Style = {
  enabled: false,
  bold: identity,
  dim: identity,
  red: identity,
  green: identity,
  yellow: identity,
  cyan: identity,
};

/**
 * The colour level for a stream (0 = none). Colour needs a TTY (or FORCE_COLOR),
 * and is never on with NO_COLOR (any non-empty value, per no-color.org) or --no-color.
 */
export function colorLevel(isTTY: boolean, allowed: boolean, env: NodeJS.ProcessEnv): 0 | 1 | 2 | 3 {
  if (!allowed || (env.NO_COLOR !== undefined && env.NO_COLOR !== '')) return 0;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') {
    if (force === '0' || force === 'false') return 0;
    return force === '2' ? 2 : force === '3' ? 3 : 1;
  }
  if (!isTTY || env.TERM === 'dumb') return 0;
  if (env.COLORTERM === 'truecolor' || env.COLORTERM === '24bit') return 3;
  return env.TERM?.includes('256') ? 2 : 1;
}

/** A chalk-backed style at `level`; chalk is only loaded when colour is actually on. */
export async function styleFor(level: 0 | 1 | 2 | 3): Promise<Style> {
  if (level === 0) return PLAIN;
  const { Chalk } = await import('chalk');
  const chalk = new Chalk({ level });
  return {
    enabled: true,
    bold: (t) => chalk.bold(t),
    dim: (t) => chalk.dim(t),
    red: (t) => chalk.red(t),
    green: (t) => chalk.green(t),
    yellow: (t) => chalk.yellow(t),
    cyan: (t) => chalk.cyan(t),
  };
}

const ANSI_PATTERN = /\u001b\[[0-9;]*m/g;

/** The text without ANSI colour escapes. */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_PATTERN, '');
}

/** The width a text takes on a terminal, ignoring colour escapes. */
export function visibleWidth(text: string): number {
  return [...stripAnsi(text)].length;
}
