import { constants } from 'node:os';
import { ConflictError, InvalidError } from '../errors.js';
import { errnoName, HOST_NIO_KINDS, loadNativeAddon, type HostWatchHandle, type NativeAddon } from './native-addon.js';
import type { NioCounters } from './nio-udp.js';
import type { HostNioSpec, NioSpec } from './types.js';

/** Linux interface names: at most IFNAMSIZ - 1 = 15 bytes; no '/', whitespace or ':' (kept to a portable set). */
const IFNAME = /^[A-Za-z0-9_.-]{1,15}$/;

export function isHostNio(nio: NioSpec): nio is HostNioSpec {
  return 'kind' in nio && nio.kind !== undefined && nio.kind !== 'udp';
}

/** The interface name, or InvalidError. */
export function checkIfname(ifname: unknown): string {
  if (typeof ifname !== 'string' || !IFNAME.test(ifname) || ifname === '.' || ifname === '..') {
    throw new InvalidError(`interface name must be 1-15 characters of A-Z a-z 0-9 _ . - (got ${JSON.stringify(ifname)})`);
  }
  return ifname;
}

/** The spec with its kind and name checked, or InvalidError. */
export function checkHostNio(nio: HostNioSpec): HostNioSpec {
  if (nio.kind !== 'tap' && nio.kind !== 'ethernet') throw new InvalidError(`NIO kind must be udp, tap or ethernet (got ${JSON.stringify(nio.kind)})`);
  return { kind: nio.kind, ifname: checkIfname(nio.ifname) };
}

/** Words a failure to open a host NIO (errno name from /dev/net/tun, TUNSETIFF, socket, bind, bringing a TAP up). */
export function hostNioError(nio: HostNioSpec, code: string): InvalidError | ConflictError {
  const what = nio.kind === 'tap' ? `TAP device ${nio.ifname}` : `interface ${nio.ifname} (AF_PACKET)`;
  // TUNSETIFF answers EINVAL when the name belongs to an interface that is not a TAP.
  if (nio.kind === 'tap' && code === 'EINVAL') return new InvalidError(`cannot use ${nio.ifname} as a TAP: it exists and is not a TAP device`);
  if (nio.kind === 'ethernet' && code === 'ENODEV') return new InvalidError(`cannot open ${what}: no such interface`);
  const why = code === 'EPERM' || code === 'EACCES' ? ' (the daemon needs CAP_NET_ADMIN, and CAP_NET_RAW for ethernet)' : code === 'EBUSY' ? ' (another process has it open)' : '';
  return new ConflictError(`cannot open ${what}: ${code}${why}`);
}

const { EAGAIN } = constants.errno;

/**
 * A host-side NIO (TAP or AF_PACKET) for the TypeScript engine. Node has no
 * ioctl, no AF_PACKET and cannot wait on a character device, so the native
 * addon opens the fd and runs one thread per NIO that polls it (non-blocking)
 * and hands frames over in batches; writes are one non-blocking write() per
 * frame. Without the addon, opening fails with a ConflictError that says so.
 */
export class HostNio {
  private closed = false;

  private constructor(private readonly addon: NativeAddon, private readonly fd: number, private readonly watch: HostWatchHandle, private readonly counters: NioCounters) {}

  static open(spec: HostNioSpec, onFrame: (frame: Buffer) => void, counters: NioCounters): HostNio {
    const loaded = loadNativeAddon();
    if (!loaded.addon) throw new ConflictError(`cannot open ${spec.kind} NIO on ${spec.ifname}: the TypeScript engine needs the native addon's helper, and ${loaded.reason}`);
    const addon = loaded.addon;
    const fd = addon.hostOpen(HOST_NIO_KINDS[spec.kind], spec.ifname);
    if (fd < 0) throw hostNioError(spec, errnoName(-fd));
    let nio: HostNio | undefined;
    const watch = addon.hostWatch(fd, (frames, dropped) => {
      if (nio?.closed) return;
      counters.drops += dropped;
      for (const f of frames) onFrame(f);
    });
    nio = new HostNio(addon, fd, watch, counters);
    return nio;
  }

  /** Writes one frame; a full queue drops it, other failures are counted as errors too. */
  send(frame: Buffer): void {
    if (this.closed) return;
    const errno = this.addon.hostWrite(this.fd, frame);
    if (errno === 0) return;
    this.counters.drops++;
    if (errno !== EAGAIN) this.counters.errors++;
  }

  /** Stops the watch thread and closes the fd: a TAP the dataplane created is gone when this resolves. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.addon.hostUnwatch(this.watch);
  }
}
