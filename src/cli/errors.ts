/**
 * The one map from an error to an exit code and to the one line printed on stderr.
 * Only src/cli/main.ts turns the code into the process's exit status. The error types
 * live in the leaf module src/client/errors.ts; they are re-exported here for commands.
 */
import { CliError, EXIT_OK, EXIT_USAGE, EXIT_FAILURE, SilentExit } from '../client/errors.js';

export {
  AmbiguousError, CliError, EXIT_FAILURE, EXIT_OK, EXIT_UNREACHABLE, EXIT_USAGE, NoMatchError, OperationError,
  SilentExit, UnreachableError, UsageError,
} from '../client/errors.js';

/** Shape of commander's own errors (structural, so commander need not be loaded to map errors). */
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
