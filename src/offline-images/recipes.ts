import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PACKAGE_ROOT } from '../version.js';
import type { OfflineImageName } from './names.js';

/** Starts sshd: a host key made at the first start (none ships in an image), the key files made strict enough for sshd's StrictModes. */
const SSHD_START = `mkdir -p /run/sshd /root/.ssh && chmod 700 /root/.ssh
[ -f /root/.ssh/authorized_keys ] && chmod 600 /root/.ssh/authorized_keys
[ -f /etc/ssh/ssh_host_ed25519_key ] || ssh-keygen -q -t ed25519 -N '' -f /etc/ssh/ssh_host_ed25519_key
/usr/sbin/sshd
`;

/** sshd's settings in the frr and ssh images: the one host key made at start, root by key only, no PAM (its loginuid module fails in a container), no DNS lookups. */
export const SSHD_CONFIG = `HostKey /etc/ssh/ssh_host_ed25519_key
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
UseDNS no
`;

/** The FRR image's start command: sshd, then the daemons /etc/frr/daemons enables (watchfrr keeps them up), then a shell on the console. */
export const FRR_START = `#!/bin/sh
# Starts sshd and the FRR daemons that /etc/frr/daemons enables (watchfrr keeps them up), then gives the console a shell.
${SSHD_START}/usr/lib/frr/frrinit.sh start
exec /bin/bash
`;

/** The ssh image's start command: sshd, then a shell on the console. */
export const SSH_START = `#!/bin/sh
# Starts sshd, then gives the console a shell.
${SSHD_START}exec /bin/bash
`;

/** Where a lab router's start script goes (beside frr.conf, in the node's /etc/frr volume). */
export const FRR_LAB_START_PATH = '/etc/frr/emuctl-start.sh';

/**
 * A lab router's start script (issue 33). frrinit.sh leaves starting the daemons and loading frr.conf
 * to watchfrr, whose job is killed after its restart timeout: with a hundred containers booting on
 * two cores, routers were left without configuration. This starts zebra and the routing daemons
 * /etc/frr/daemons enables (staticd only when it says `staticd=yes`), loads frr.conf with `vtysh -b`
 * itself, where no timeout kills it, and only then hands the running daemons to watchfrr, which
 * restarts one that dies. The script stays PID 1 (no process forked a second): SIGTERM stops FRR, every
 * daemon at once.
 */
export const FRR_LAB_START = `#!/bin/bash
# Written by emuctl: starts the FRR daemons /etc/frr/daemons enables (zebra always, staticd only
# when it says staticd=yes), loads frr.conf with vtysh -b, then hands the daemons to watchfrr.
log_success_msg() { :; }
log_warning_msg() { echo "$@" >&2; }
log_failure_msg() { echo "$@" >&2; }
. /usr/lib/frr/frrcommon.sh
daemons=zebra
for d in $DAEMONS; do
	eval "on=\\\${$d:-no}"
	[ "$d" != zebra ] && [ "$on" != no ] && [ "$on" != 0 ] && daemons="$daemons $d"
done
for d in $daemons; do daemon_start --all "$d"; done
vtysh_b || echo "emuctl: vtysh -b did not load all of /etc/frr/frr.conf" >&2
watchfrr_options="$watchfrr_options $daemons"
daemon_start watchfrr
# docker stop: every other process of the container gets SIGTERM at once and the script ends (the kernel
# ends what is left with it); frrinit.sh stop took half a CPU-second a router, one daemon after the other.
trap 'kill -TERM -1 2>/dev/null; exit 0' TERM INT
while :; do sleep 86400 & wait $!; done
`;

/** A lab router's command: the start script above, which a lab delivers as a startup file. */
export const FRR_LAB_START_COMMAND = `bash ${FRR_LAB_START_PATH}`;

/**
 * watchfrr kills its start job (which loads frr.conf) after 20 s by default: with many routers booting
 * at once on a small machine the job takes longer, and the router is left without its configuration.
 */
export const WATCHFRR_OPTIONS = 'watchfrr_options="-T 600"';

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

/** mmdebstrap hook commands that set sshd up in a root ($1): its settings (from `config`), no host key, root's password field `*` (no password, not locked, so key logins work). */
export function sshdCustomize(config: string): string[] {
  return [
    `cp ${config} "$1/etc/ssh/sshd_config.d/emuctl.conf"`,
    'rm -f "$1"/etc/ssh/ssh_host_*',
    `sed -i 's/^root:[^:]*:/root:*:/' "$1/etc/shadow"`,
  ];
}

/** The commands mmdebstrap runs on the FRR root ($1), given the start script, the compiled shim and sshd's settings. */
export function frrCustomize(start: string, shim: string, sshdConfig: string): string {
  return [
    `cp ${start} "$1/usr/lib/frr/docker-start" && chmod 755 "$1/usr/lib/frr/docker-start"`,
    `mkdir -p "$1/usr/lib/emuctl" && cp ${shim} "$1/usr/lib/emuctl/drop-sys-admin.so" && chmod 644 "$1/usr/lib/emuctl/drop-sys-admin.so"`,
    'echo /usr/lib/emuctl/drop-sys-admin.so > "$1/etc/ld.so.preload"',
    `echo '${WATCHFRR_OPTIONS}' >> "$1/etc/frr/daemons"`,
    ...sshdCustomize(sshdConfig),
  ].join(' && ');
}

/** The commands mmdebstrap runs on the ssh image's root ($1), given its start script and sshd's settings. */
export function sshCustomize(start: string, sshdConfig: string): string {
  return [
    ...sshdCustomize(sshdConfig),
    `mkdir -p "$1/usr/lib/emuctl" && cp ${start} "$1/usr/lib/emuctl/ssh-start" && chmod 755 "$1/usr/lib/emuctl/ssh-start"`,
    // Documentation and locales are most of a small root file system and nothing here reads them.
    'rm -rf "$1"/usr/share/doc/* "$1"/usr/share/man/* "$1"/usr/share/locale/* "$1"/var/cache/apt/* "$1"/var/lib/apt/lists/*',
  ].join(' && ');
}

/** What an offline image is made of: Debian packages, its command, and the text of every step (its content hash covers them). */
export interface Recipe {
  packages: string[];
  cmd: string[];
  /** The recipe's own texts, hashed into its tag: a change to any of them builds a new image. */
  texts: () => Record<string, unknown>;
}

/** The recipes. Bump `revision` when a build step changes in a way its texts do not show. */
export const RECIPES: Readonly<Record<OfflineImageName, Recipe>> = {
  host: {
    packages: ['busybox-static'],
    cmd: ['/bin/sh'],
    texts: () => ({ revision: 1, dirs: HOST_DIRS, files: HOST_FILES, links: 'busybox --list-full → /bin/busybox' }),
  },
  frr: {
    packages: ['frr', 'iproute2', 'iputils-ping', 'procps', 'tcpdump', 'openssh-server'],
    cmd: ['/usr/lib/frr/docker-start'],
    texts: () => ({ revision: 1, start: FRR_START, sshd: SSHD_CONFIG, customize: frrCustomize('START', 'SHIM', 'SSHD'), shim: readFileSync(DROP_SYS_ADMIN_SOURCE, 'utf8'), suite: 'bookworm', variant: 'apt' }),
  },
  ssh: {
    packages: ['openssh-server', 'python3', 'iproute2'],
    cmd: ['/usr/lib/emuctl/ssh-start'],
    texts: () => ({ revision: 1, start: SSH_START, sshd: SSHD_CONFIG, customize: sshCustomize('START', 'SSHD'), suite: 'bookworm', variant: 'essential' }),
  },
};
