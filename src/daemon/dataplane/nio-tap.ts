import { ConflictError, InvalidError } from '../errors.js';
import { errnoName, loadNativeAddon, type NativeAddon, type TapWatchHandle } from './native-addon.js';
import type { NioCounters } from './nio-udp.js';
import type { NioSpec, TapNioSpec } from './types.js';

/** Linux interface names: at most IFNAMSIZ - 1 = 15 bytes; no '/', whitespace or ':' (kept to a portable set). */
const IFNAME = /^[A-Za-z0-9_.-]{1,15}$/;

export function isTap(nio: NioSpec): nio is TapNioSpec {
  return (nio as TapNioSpec).kind === 'tap';
}

/** The interface name, or InvalidError. */
export function checkIfname(ifname: unknown): string {
  if (typeof ifname !== 'string' || !IFNAME.test(ifname) || ifname === '.' || ifname === '..') {
    throw new InvalidError(`TAP interface name must be 1-15 characters of A-Z a-z 0-9 _ . - (got ${JSON.stringify(ifname)})`);
  }
  return ifname;
}

/** Words a failure to open the TAP (errno name from /dev/net/tun, TUNSETIFF or bringing it up). */
export function tapError(ifname: string, code: string): InvalidError | ConflictError {
  // TUNSETIFF answers EINVAL when the name belongs to an interface that is not a TAP.
  if (code === 'EINVAL') return new InvalidError(`cannot use ${ifname} as a TAP: it exists and is not a TAP device`);
  const why = code === 'EPERM' || code === 'EACCES' ? ' (the daemon needs CAP_NET_ADMIN)' : code === 'EBUSY' ? ' (another process has it open)' : '';
  return new ConflictError(`cannot open TAP device ${ifname}: ${code}${why}`);
}

const EAGAIN = 11;

/**
 * A TAP device for the TypeScript engine. Node has no ioctl and cannot wait
 * on a character device, so the native addon opens the device and runs one
 * thread per TAP that polls its non-blocking fd and hands frames over in
 * batches; writes are one non-blocking write() per frame. Without the addon,
 * opening fails with a ConflictError that says so.
 */
export class TapNio {
  private closed = false;

  private constructor(private readonly addon: NativeAddon, private readonly fd: number, private readonly watch: TapWatchHandle, private readonly counters: NioCounters) {}

  static open(ifname: string, onFrame: (frame: Buffer) => void, counters: NioCounters): TapNio {
    const loaded = loadNativeAddon();
    if (!loaded.addon) throw new ConflictError(`cannot open TAP device ${ifname}: the TypeScript engine needs the native addon's TAP helper, and ${loaded.reason}`);
    const addon = loaded.addon;
    const fd = addon.tapOpen(ifname);
    if (fd < 0) throw tapError(ifname, errnoName(-fd));
    let nio: TapNio | undefined;
    const watch = addon.tapWatch(fd, (frames, dropped) => {
      if (nio?.closed) return;
      counters.drops += dropped;
      for (const f of frames) onFrame(f);
    });
    nio = new TapNio(addon, fd, watch, counters);
    return nio;
  }

  /** Writes one frame; a full device queue drops it, other failures are counted as errors too. */
  send(frame: Buffer): void {
    if (this.closed) return;
    const errno = this.addon.tapWrite(this.fd, frame);
    if (errno === 0) return;
    this.counters.drops++;
    if (errno !== EAGAIN) this.counters.errors++;
  }

  /** Stops the watch thread and closes the fd: a TAP the dataplane created is gone when this resolves. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.addon.tapUnwatch(this.watch);
  }
}
