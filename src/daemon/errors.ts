/** Domain errors thrown below HTTP; the error middleware maps them to `{message, status}` in one place. */
export abstract class DomainError extends Error {
  abstract readonly status: number;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The request is malformed or violates a schema or a range (400). */
export class InvalidError extends DomainError {
  readonly status = 400;
}

/** Credentials are missing or wrong (401). */
export class UnauthorizedError extends DomainError {
  readonly status = 401;
}

/** The request is understood but refused: it comes from a web page or a name this daemon does not serve, names something never served, or a path that goes through a symbolic link or a hard-linked file (403). */
export class ForbiddenError extends DomainError {
  readonly status = 403;
}

/** The instance named does not exist (404). */
export class NotFoundError extends DomainError {
  readonly status = 404;
}

/** The request clashes with the current state: port in use, nothing running, duplicate name (409). */
export class ConflictError extends DomainError {
  readonly status = 409;
}

/** The request body is over the size limit (413). */
export class PayloadTooLargeError extends DomainError {
  readonly status = 413;
}

/** The client must slow down: too many failed logins from its address (429, with Retry-After). */
export class TooManyRequestsError extends DomainError {
  readonly status = 429;
  constructor(message: string, readonly retryAfterSeconds: number) {
    super(message);
  }
}

/** The daemon cannot take this now: every slot for long-lived streams is in use, or the dataplane worker is restarting after a crash (503). */
export class UnavailableError extends DomainError {
  readonly status = 503;
}

/** A change could not be written to disk, so it was undone (507, as WebDAV names a full store). */
export class InsufficientStorageError extends DomainError {
  readonly status = 507;
}

/** What a failed write's errno code means, in words a user acts on. */
const DISK_PROBLEMS: Record<string, string> = {
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exceeded',
  EROFS: 'the file system is read-only',
  EIO: 'an I/O error on the disk',
  EFBIG: 'the file is too large for the file system',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files in the system',
};

/** A failed write's errno code in words, with the code: `no space left on the device (ENOSPC)`. */
export function diskProblem(code: string): string {
  return `${DISK_PROBLEMS[code] ?? 'the write failed'} (${code})`;
}

/** The 507 for a write to `file` that failed with `err`: the message names the disk problem and its code. */
export function storageError(file: string, err: unknown): InsufficientStorageError {
  if (err instanceof InsufficientStorageError) return err;
  const code = (err as NodeJS.ErrnoException).code;
  const problem = code && DISK_PROBLEMS[code] ? diskProblem(code) : code ? `${(err as Error).message} (${code})` : (err as Error).message;
  return new InsufficientStorageError(`Cannot write ${file}: ${problem}; the change was not applied`);
}

/** Whether `err` is a failed system call that says the disk cannot take the write (full, quota, read-only, I/O error…). */
export function isDiskProblem(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return !(err instanceof DomainError) && typeof code === 'string' && Object.hasOwn(DISK_PROBLEMS, code);
}

/** Codes that can only mean the store cannot take a write, whichever call failed (EACCES or EIO may come from a socket or a process). */
const STORE_CODES = new Set(['ENOSPC', 'EDQUOT', 'EFBIG', 'EROFS']);

/** Whether `err` is a failed system call that says the store is full, over quota or read-only. */
export function isStoreFull(err: unknown): boolean {
  return isDiskProblem(err) && STORE_CODES.has((err as NodeJS.ErrnoException).code!);
}

/** `err` as the 507 naming `file` when it is a disk problem; any other error unchanged. */
export function diskError(file: string, err: unknown): unknown {
  return isDiskProblem(err) ? storageError(file, err) : err;
}

/** A remote compute answered badly or could not be reached (502). */
export class BadGatewayError extends DomainError {
  readonly status = 502;
}

/** A remote compute did not answer within the allowed time (504). */
export class GatewayTimeoutError extends DomainError {
  readonly status = 504;
}

/** An error passed through from a remote compute with the status it gave. */
export class UpstreamError extends DomainError {
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

export type DomainErrorKind = 'invalid' | 'forbidden' | 'notfound' | 'conflict' | 'storage';

/** Rebuilds a domain error from a kind sent across a thread boundary. */
export function domainErrorOf(kind: DomainErrorKind, message: string): DomainError {
  switch (kind) {
    case 'invalid':
      return new InvalidError(message);
    case 'forbidden':
      return new ForbiddenError(message);
    case 'notfound':
      return new NotFoundError(message);
    case 'conflict':
      return new ConflictError(message);
    case 'storage':
      return new InsufficientStorageError(message);
  }
}
