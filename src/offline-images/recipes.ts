import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../version.js';
import type { OfflineImageName } from './names.js';

/** The FRR image's start command: it starts the daemons /etc/frr/daemons enables (watchfrr keeps them up), then gives the console a shell. */
export const FRR_START = `#!/bin/sh
# Starts the FRR daemons that /etc/frr/daemons enables (watchfrr keeps them up), then gives the console a shell.
/usr/lib/frr/frrinit.sh start
exec /bin/bash
`;

/**
 * FRR 8.4 dies without CAP_SYS_ADMIN, which emuctl does not grant: this LD_PRELOAD shim, compiled at
 * build time and listed in the image's /etc/ld.so.preload, clears it from what the daemons ask libcap for.
 */
export const DROP_SYS_ADMIN_SOURCE = fileURLToPath(new URL('scripts/docker-images/drop-sys-admin.c', PACKAGE_ROOT));

/** The directories of the host image's empty root, beside busybox's applet links. */
export const HOST_DIRS = ['bin', 'sbin', 'usr/bin', 'usr/sbin', 'etc', 'tmp', 'root', 'proc', 'sys', 'dev', 'var/run'];

/** The host image's /etc/passwd and /etc/group. */
export const HOST_FILES: Readonly<Record<string, string>> = {
  'etc/passwd': 'root:x:0:0:root:/root:/bin/sh\n',
  'etc/group': 'root:x:0:\n',
};

/** The commands mmdebstrap runs on the FRR root ($1), given the start script and the compiled shim. */
export function frrCustomize(start: string, shim: string): string {
  return [
    `cp ${start} "$1/usr/lib/frr/docker-start" && chmod 755 "$1/usr/lib/frr/docker-start"`,
    `mkdir -p "$1/usr/lib/emuctl" && cp ${shim} "$1/usr/lib/emuctl/drop-sys-admin.so" && chmod 644 "$1/usr/lib/emuctl/drop-sys-admin.so"`,
    'echo /usr/lib/emuctl/drop-sys-admin.so > "$1/etc/ld.so.preload"',
  ].join(' && ');
}

/** What an offline image is made of: Debian packages, its command, and the text of every step (its content hash covers them). */
export interface Recipe {
  packages: string[];
  cmd: string[];
  /** The recipe's own texts, hashed into its tag: a change to any of them builds a new image. */
  texts: () => Record<string, unknown>;
}

/** The two recipes. Bump `revision` when a build step changes in a way its texts do not show. */
export const RECIPES: Readonly<Record<OfflineImageName, Recipe>> = {
  host: {
    packages: ['busybox-static'],
    cmd: ['/bin/sh'],
    texts: () => ({ revision: 1, dirs: HOST_DIRS, files: HOST_FILES, links: 'busybox --list-full → /bin/busybox' }),
  },
  frr: {
    packages: ['frr', 'iproute2', 'iputils-ping', 'procps', 'tcpdump'],
    cmd: ['/usr/lib/frr/docker-start'],
    texts: () => ({ revision: 1, start: FRR_START, customize: frrCustomize('START', 'SHIM'), shim: readFileSync(DROP_SYS_ADMIN_SOURCE, 'utf8'), suite: 'bookworm', variant: 'apt' }),
  },
};
