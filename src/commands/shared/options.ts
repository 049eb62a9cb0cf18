import { InvalidArgumentError } from 'commander';

/** Parses the port a daemon listens on: 0 asks for any free port, which the daemon then reports. */
export function parseListenPort(value: string): number {
  return value === '0' ? 0 : parsePort(value);
}

/** Parses a TCP port for commander (1–65535); a bad value is a usage error. */
export function parsePort(value: string): number {
  const port = Number(value);
  if (!/^\d+$/.test(value) || port < 1 || port > 65535) throw new InvalidArgumentError('expected a port number 1-65535.');
  return port;
}

/** Parses a positive number of seconds for commander. */
export function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new InvalidArgumentError('expected a positive number of seconds.');
  return seconds;
}

/** Parses a whole number for commander: positive, or also 0 with `allowZero`. */
export function parsePositiveInt(value: string, allowZero = false): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || (n === 0 && !allowZero)) throw new InvalidArgumentError(allowZero ? 'expected a whole number 0 or more.' : 'expected a whole number 1 or more.');
  return n;
}

/** Collects the values of a repeatable option for commander. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
