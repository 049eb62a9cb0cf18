import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

export type SocketProtocol = 'tcp' | 'udp';

/** TCP state code of a listening socket in /proc/net/tcp. */
const TCP_LISTEN = '0A';

/** The inodes of the sockets a process has open (from the `socket:[inode]` links in /proc/<pid>/fd). */
export function socketInodesOf(pid: number): Set<string> {
  const inodes = new Set<string>();
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return inodes;
  }
  for (const fd of fds) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]);
    } catch {
      // The fd was closed while we listed them.
    }
  }
  return inodes;
}

/**
 * The inodes of the sockets bound to local `port` (IPv4 and IPv6); for TCP only listening sockets.
 * Rows of /proc/net/{tcp,udp}[6]: `sl local_address rem_address st ... uid timeout inode`.
 */
export function inodesBoundTo(protocol: SocketProtocol, port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of [`/proc/net/${protocol}`, `/proc/net/${protocol}6`]) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10) continue;
      const localPort = parseInt(cols[1].split(':')[1], 16);
      if (localPort !== port) continue;
      if (protocol === 'tcp' && cols[3] !== TCP_LISTEN) continue;
      inodes.add(cols[9]);
    }
  }
  return inodes;
}

/** True when process `pid` holds a socket bound to local `port` (listening, for TCP). */
export function processHoldsPort(pid: number, protocol: SocketProtocol, port: number): boolean {
  const bound = inodesBoundTo(protocol, port);
  if (bound.size === 0) return false;
  for (const inode of socketInodesOf(pid)) if (bound.has(inode)) return true;
  return false;
}

/** __SO_ACCEPTCON in the Flags column of /proc/net/unix: the socket listens. */
const UNIX_LISTENING = 0x10000;

/**
 * True when process `pid` listens on a unix socket whose bound path ends with the file name `name`
 * (a path bound relative to the process's directory appears as given). Rows of /proc/net/unix:
 * `Num RefCount Protocol Flags Type St Inode Path`.
 */
export function processListensOnUnix(pid: number, name: string): boolean {
  let text: string;
  try {
    text = readFileSync('/proc/net/unix', 'utf8');
  } catch {
    return false;
  }
  const listening = new Set<string>();
  for (const line of text.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 8 || !(parseInt(cols[3], 16) & UNIX_LISTENING)) continue;
    const path = cols.slice(7).join(' ');
    if (path === name || path.endsWith(`/${name}`)) listening.add(cols[6]);
  }
  if (listening.size === 0) return false;
  for (const inode of socketInodesOf(pid)) if (listening.has(inode)) return true;
  return false;
}
