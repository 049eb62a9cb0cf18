/**
 * Typed CLI errors and the one map from an error to an exit code:
 * 0 ok, 1 failure reported by the server or the operation, 2 usage error,
 * 3 cannot reach the server. Only src/cli/main.ts turns the code into the
 * process's exit status.
 */

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
export const EXIT_UNREACHABLE = 3;

/** Base of every error the CLI reports as one line on stderr. */
export abstract class CliError extends Error {
  abstract readonly exitCode: number;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The command line is wrong: bad flag value, missing argument, unknown profile (exit 2). */
export class UsageError extends CliError {
  readonly exitCode = EXIT_USAGE;
}

/** The server or the operation reported a failure (exit 1); `status` is the HTTP status when there is one. */
export class OperationError extends CliError {
  readonly exitCode = EXIT_FAILURE;
  constructor(message: string, readonly status?: number) {
    super(message);
  }
}

/** No object matches a name, UUID or UUID prefix (exit 1). */
export class NoMatchError extends OperationError {}

/** A name or UUID prefix matches several objects (exit 1). */
export class AmbiguousError extends OperationError {}

/** The server cannot be reached: connection refused, DNS failure, timeout (exit 3). */
export class UnreachableError extends CliError {
  readonly exitCode = EXIT_UNREACHABLE;
  constructor(message: string, readonly hint?: string) {
    super(hint ? `${message}; ${hint}` : message);
  }
}

/** The command already reported what happened; exit with `exitCode` and print nothing more. */
export class SilentExit extends CliError {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}

/** Shape of commander's own errors (kept structural so this module imports nothing). */
interface CommanderLikeError {
  code: string;
  exitCode: number;
}

function isCommanderError(err: unknown): err is CommanderLikeError & Error {
  return err instanceof Error && typeof (err as Partial<CommanderLikeError>).code === 'string'
    && (err as Partial<CommanderLikeError>).code!.startsWith('commander.');
}

/** The exit code for any error: typed CLI errors carry theirs, commander's usage errors are 2, anything else 1. */
export function exitCodeFor(err: unknown): number {
  if (err instanceof CliError) return err.exitCode;
  if (isCommanderError(err)) return err.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
  return EXIT_FAILURE;
}

/** The one line to print on stderr for an error, or undefined when it was already reported. */
export function errorLineFor(err: unknown): string | undefined {
  if (err instanceof SilentExit) return undefined;
  // commander has already written its own message through the output object.
  if (isCommanderError(err)) return undefined;
  if (err instanceof CliError) return err.message;
  if (err instanceof Error) return `unexpected error: ${err.message}`;
  return `unexpected error: ${String(err)}`;
}
