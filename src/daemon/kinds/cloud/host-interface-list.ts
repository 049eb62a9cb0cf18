import { existsSync, readdirSync } from 'node:fs';

/** One host interface as GNS3's cloud lists it (HOST_INTERFACE_SCHEMA). */
export interface HostInterface {
  name: string;
  type: 'ethernet' | 'tap';
  /** Not a plain Ethernet interface a cloud would bridge (loopback). */
  special: boolean;
}

/** This network namespace's interfaces, sorted: a TAP has tun_flags in sysfs. */
export function hostInterfaceList(): HostInterface[] {
  return readdirSync('/sys/class/net').sort().map((name) => ({
    name,
    type: existsSync(`/sys/class/net/${name}/tun_flags`) ? 'tap' : 'ethernet',
    special: name === 'lo',
  }));
}
