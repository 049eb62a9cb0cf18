import { colorLevel, PLAIN, styleFor, type Style } from './style.js';
import { terminalSafe } from './terminal-text.js';

/** The part of a writable stream the output needs. */
export interface TextStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** How the user asked for output: --json, -q/--quiet and --no-color. */
export interface OutputMode {
  json: boolean;
  quiet: boolean;
  color: boolean;
}

/**
 * The one output object: knows the streams, TTY, colour, --json and --quiet.
 * Data goes to stdout, everything else (notes, warnings, errors, spinners) to stderr,
 * so that `--json` leaves only JSON on stdout.
 */
export class Output {
  private mode: OutputMode = { json: false, quiet: false, color: true };
  /** Style for text written to stdout (plain unless stdout is a colour terminal). */
  style: Style = PLAIN;
  /** Style for text written to stderr. */
  errStyle: Style = PLAIN;

  constructor(
    private readonly stdout: TextStream,
    private readonly stderr: TextStream,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** Applies the global options; loads chalk only if a stream will be coloured. */
  async configure(mode: Partial<OutputMode>): Promise<void> {
    this.mode = { ...this.mode, ...mode };
    this.style = await styleFor(colorLevel(Boolean(this.stdout.isTTY), this.mode.color, this.env));
    this.errStyle = await styleFor(colorLevel(Boolean(this.stderr.isTTY), this.mode.color, this.env));
  }

  get json(): boolean {
    return this.mode.json;
  }

  get quiet(): boolean {
    return this.mode.quiet;
  }

  /**
   * True when stderr is a terminal and spinners may be shown. A terminal that reports
   * no width (e.g. a pty under script(1)) gets none: ora 9 divides by the width and
   * then loops forever clearing lines.
   */
  get interactive(): boolean {
    return Boolean(this.stderr.isTTY) && (this.stderr.columns ?? 0) > 0 && !this.mode.json && !this.mode.quiet;
  }

  /** A command's result: `value` as JSON with --json, otherwise the human rendering (if any). */
  result(value: unknown, human?: () => string): void {
    if (this.mode.json) this.writeOut(JSON.stringify(value, null, 2) + '\n');
    else if (human) this.writeOut(human());
  }

  /** A confirmation such as "Created project lab": stdout, silent with --json or --quiet. */
  success(message: string): void {
    if (this.mode.json || this.mode.quiet) return;
    this.writeOut(`${this.style.green('✓')} ${message}\n`);
  }

  /** Secondary information (hints, progress): stderr, silent with --quiet. */
  note(message: string): void {
    if (this.mode.quiet) return;
    this.writeErr(`${message}\n`);
  }

  /** A warning: stderr, always shown. */
  warn(message: string): void {
    this.writeErr(`${this.errStyle.yellow('warning:')} ${message}\n`);
  }

  /** An error line: stderr, always shown. */
  error(message: string): void {
    this.writeErr(`${this.errStyle.red('emuctl:')} ${message}\n`);
  }

  /**
   * Text to stdout (help text, completion scripts, human renderings). On a terminal, whatever a
   * terminal would act on is shown as a visible escape, colours aside: the text may hold names
   * and messages a server chose. Piped output is written as it is.
   */
  writeOut(text: string): void {
    this.stdout.write(this.stdout.isTTY ? terminalSafe(text, this.style.enabled) : text);
  }

  /** True when stdout is a terminal, where a display can be redrawn in place. */
  get stdoutIsTerminal(): boolean {
    return Boolean(this.stdout.isTTY);
  }

  /** Clears the terminal on stdout and writes `text` from its top left corner (a display redrawn in place, like watch(1)). */
  redrawScreen(text: string): void {
    this.stdout.write('\x1b[H\x1b[2J');
    this.writeOut(text);
  }

  /** Text to stderr, made safe for a terminal as writeOut's is. */
  writeErr(text: string): void {
    this.stderr.write(this.safeErr(text));
  }

  /** Redraws the current stderr line (a progress line) with `text`, made safe as writeErr's is. */
  redrawErrLine(text: string): void {
    this.stderr.write(`\r\x1b[K${this.safeErr(text)}`);
  }

  private safeErr(text: string): string {
    return this.stderr.isTTY ? terminalSafe(text, this.errStyle.enabled) : text;
  }

  /** Awaits `task` behind an ora spinner on stderr when interactive; plainly otherwise. */
  async spin<T>(text: string, task: () => Promise<T>): Promise<T> {
    const spinner = await this.spinner(text);
    try {
      return await task();
    } finally {
      spinner?.stop();
    }
  }

  /** A started ora spinner on stderr whose text the caller may change, or undefined when not interactive. */
  async spinner(text: string): Promise<{ text: string; stop(): void } | undefined> {
    if (!this.interactive) return undefined;
    const { default: ora } = await import('ora');
    // Spinner texts hold names a server chose; ora writes them to the terminal itself.
    const safe = (t: string) => terminalSafe(t, this.errStyle.enabled);
    const spinner = ora({ text: safe(text), stream: this.stderr as NodeJS.WritableStream, color: 'cyan' }).start();
    return {
      get text() {
        return spinner.text;
      },
      set text(t: string) {
        spinner.text = safe(t);
      },
      stop: () => void spinner.stop(),
    };
  }
}

/** Awaits `task` behind an ora spinner whose text the task updates (a progress line), on a terminal only. */
export async function spinWithProgress<T>(out: Output, text: string, task: (update: (text: string) => void) => Promise<T>): Promise<T> {
  const spinner = await out.spinner(text);
  try {
    return await task((t) => {
      if (spinner) spinner.text = t;
    });
  } finally {
    spinner?.stop();
  }
}

/** The output of a real process: process.stdout, process.stderr and the environment. */
export function createProcessOutput(env: NodeJS.ProcessEnv = process.env): Output {
  return new Output(process.stdout, process.stderr, env);
}
