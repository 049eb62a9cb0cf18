/**
 * The CLI's typed errors and exit codes: 0 ok, 1 failure reported by the server or
 * the operation, 2 usage error, 3 cannot reach the server. A leaf module (it imports
 * nothing), so that the client, the commands and the CLI core all throw the same
 * types while depending one way: cli → commands → client. src/cli/errors.ts maps
 * any error to its exit code and its one line on stderr.
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

/** The server's TLS certificate failed verification (CA, name or pinned fingerprint): treated as unreachable (exit 3), nothing was sent. */
export class UntrustedServerError extends CliError {
  readonly exitCode = EXIT_UNREACHABLE;
}

/** The command already reported what happened; exit with `exitCode` and print nothing more. */
export class SilentExit extends CliError {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}
