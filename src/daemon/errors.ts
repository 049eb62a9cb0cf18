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

export type DomainErrorKind = 'invalid' | 'notfound' | 'conflict';

/** Rebuilds a domain error from a kind sent across a thread boundary. */
export function domainErrorOf(kind: DomainErrorKind, message: string): DomainError {
  switch (kind) {
    case 'invalid':
      return new InvalidError(message);
    case 'notfound':
      return new NotFoundError(message);
    case 'conflict':
      return new ConflictError(message);
  }
}
