import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ConflictError, InvalidError } from '../errors.js';
import type { UdpTunnel } from './types.js';

/** A tunnel with both ends as addresses of one family, ready to bind and connect. */
export interface ResolvedTunnel extends UdpTunnel {
  family: 4 | 6;
  bindAddress: string;
  remoteAddress: string;
}

function checkPort(name: string, v: unknown): number {
  if (!Number.isInteger(v) || (v as number) < 1 || (v as number) > 65535) throw new InvalidError(`${name} must be 1-65535 (got ${String(v)})`);
  return v as number;
}

/** The errno name of a failure ("EADDRINUSE"), or its message. */
export function errCode(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? (e as Error).message;
}

/** Checks the ports and resolves both hosts: the remote in the bind address's family (either if the bind host is a name), the bind host in the remote's. */
export async function resolveTunnel(tunnel: UdpTunnel): Promise<ResolvedTunnel> {
  checkPort('lport', tunnel.lport);
  checkPort('rport', tunnel.rport);
  const bindFamily = isIP(tunnel.bindHost);
  let remote: { address: string; family: number };
  try {
    remote = await lookup(tunnel.rhost, { family: bindFamily === 6 ? 6 : bindFamily === 4 ? 4 : 0 });
  } catch (e) {
    throw new InvalidError(`cannot resolve rhost "${tunnel.rhost}": ${errCode(e)}`);
  }
  const family = remote.family === 6 ? 6 : 4;
  let bindAddress = tunnel.bindHost;
  if (!bindFamily) {
    try {
      bindAddress = (await lookup(tunnel.bindHost, { family })).address;
    } catch (e) {
      throw bindError(tunnel, errCode(e));
    }
  }
  return { ...tunnel, family, bindAddress, remoteAddress: remote.address };
}

/** lport cannot be bound (in use, or no such local address). */
export function bindError(t: UdpTunnel, code: string): ConflictError {
  return new ConflictError(`UDP port ${t.lport} on ${t.bindHost} cannot be bound: ${code}`);
}

/** The socket cannot be connected to the remote end. */
export function connectError(t: UdpTunnel, code: string): InvalidError {
  return new InvalidError(`cannot connect UDP port ${t.lport} to ${t.rhost}:${t.rport}: ${code}`);
}
