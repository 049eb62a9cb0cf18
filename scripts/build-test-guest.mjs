#!/usr/bin/env node
// Builds the tiny QEMU test guest from Debian packages, into a cache outside the repo:
//   node scripts/build-test-guest.mjs [CACHE_DIR]
// prints {"kernel": ".../vmlinuz", "initrd": ".../initrd.img", "version": "..."} on stdout.
//
// The kernel comes from linux-image-cloud-amd64 (its virtio drivers are modules), the initramfs
// holds busybox-static, those modules and an /init that loads them, configures guest.ethN=ADDR/LEN
// from the kernel command line (guest.forward=1 turns IPv4 forwarding on) and runs a shell on the
// serial console. Only `apt-get download` and `dpkg-deb -x` are used: no root filesystem tools.
// Boot it with: -kernel vmlinuz -initrd initrd.img -append "console=ttyS0 guest.eth0=10.0.0.5/24"
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, join } from 'node:path';

const KERNEL_PACKAGE = 'linux-image-cloud-amd64';
const BUSYBOX_PACKAGE = 'busybox-static';
/** Modules the guest loads (with what they depend on): virtio NICs and disks. */
const WANTED_MODULES = ['virtio_pci', 'virtio_net', 'virtio_blk'];

const INIT = `#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
for m in $(cat /lib/modules/load-order); do insmod /lib/modules/$m.ko; done
ip link set lo up
for arg in $(cat /proc/cmdline); do
  case "$arg" in
    guest.eth*=*) dev=\${arg#guest.}; dev=\${dev%%=*}; ip addr add "\${arg#*=}" dev "$dev"; ip link set "$dev" up ;;
    guest.forward=1) echo 1 > /proc/sys/net/ipv4/ip_forward ;;
  esac
done
echo "emuctl test guest ready"
while true; do setsid cttyhack sh; done
`;

function cacheRoot() {
  if (process.argv[2]) return process.argv[2];
  const base = process.env.XDG_CACHE_HOME || join(homedir(), '.cache');
  return join(base, 'emuctl', 'test-guest');
}

function sh(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...opts });
}

/** apt-get download needs package lists: on a fresh machine, fetch them once and retry. */
function aptDownload(packages, dir) {
  try {
    sh('apt-get', ['download', ...packages], { cwd: dir });
  } catch {
    const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
    execFileSync(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), 'update', '-qq'], { stdio: 'inherit' });
    sh('apt-get', ['download', ...packages], { cwd: dir });
  }
}

/** The versioned kernel package the meta-package depends on (linux-image-6.1.0-N-cloud-amd64). */
function kernelPackage() {
  const read = () => sh('apt-cache', ['depends', KERNEL_PACKAGE]).match(/Depends:\s+(linux-image-\S+)/)?.[1];
  let name;
  try {
    name = read();
  } catch {
    name = undefined;
  }
  if (!name) {
    const sudo = process.getuid?.() === 0 ? [] : ['sudo'];
    execFileSync(sudo[0] ?? 'apt-get', [...sudo.slice(1), ...(sudo.length ? ['apt-get'] : []), 'update', '-qq'], { stdio: 'inherit' });
    name = read();
  }
  if (!name) throw new Error(`cannot find the kernel package that ${KERNEL_PACKAGE} depends on`);
  return name;
}

function walk(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

/** The modules to load, dependencies first, from the `depends=` field of each module's .modinfo. */
function moduleLoadOrder(modulesDir) {
  const byName = new Map(walk(modulesDir).filter((p) => p.endsWith('.ko')).map((p) => [basename(p, '.ko').replace(/-/g, '_'), p]));
  const order = [];
  const visit = (name) => {
    if (order.includes(name)) return;
    const path = byName.get(name);
    if (!path) throw new Error(`module ${name} is not in the kernel package (is it built in?)`);
    const deps = /depends=([\w,-]*)\0/.exec(readFileSync(path, 'latin1'))?.[1] ?? '';
    for (const dep of deps.split(',').filter(Boolean)) visit(dep.replace(/-/g, '_'));
    order.push(name);
  };
  WANTED_MODULES.forEach(visit);
  return order.map((name) => ({ name, path: byName.get(name) }));
}

/** A cpio archive in the "newc" format the kernel unpacks as its initramfs. */
function cpioNewc(entries) {
  const parts = [];
  let ino = 1;
  const pad4 = (n) => Buffer.alloc((4 - (n % 4)) % 4);
  const add = (name, mode, data = Buffer.alloc(0), rdev = [0, 0]) => {
    const nameBuf = Buffer.from(name + '\0');
    const fields = [ino++, mode, 0, 0, 1, 0, data.length, 0, 0, rdev[0], rdev[1], nameBuf.length, 0];
    const header = Buffer.from('070701' + fields.map((f) => f.toString(16).padStart(8, '0')).join(''));
    parts.push(header, nameBuf, pad4(header.length + nameBuf.length), data, pad4(data.length));
  };
  for (const e of entries) add(e.name, e.mode, e.data, e.rdev);
  add('TRAILER!!!', 0);
  return Buffer.concat(parts);
}

function build(root) {
  const work = mkdtempSync(join(root, '.build-'));
  try {
    const kernelPkg = kernelPackage();
    aptDownload([kernelPkg, BUSYBOX_PACKAGE], work);
    for (const deb of readdirSync(work).filter((f) => f.endsWith('.deb'))) sh('dpkg-deb', ['-x', join(work, deb), join(work, 'root')]);
    const modulesRoot = join(work, 'root', 'lib', 'modules');
    const version = readdirSync(modulesRoot)[0];
    const modules = moduleLoadOrder(join(modulesRoot, version));
    const dir = (name) => ({ name, mode: 0o40755 });
    const file = (name, data, mode = 0o100644) => ({ name, mode, data });
    const initrd = cpioNewc([
      dir('bin'), dir('dev'), dir('proc'), dir('sys'), dir('tmp'), dir('lib'), dir('lib/modules'),
      { name: 'dev/console', mode: 0o20600, rdev: [5, 1] },
      file('init', Buffer.from(INIT), 0o100755),
      file('bin/busybox', readFileSync(join(work, 'root', 'bin', 'busybox')), 0o100755),
      ...modules.map((m) => file(`lib/modules/${m.name}.ko`, readFileSync(m.path))),
      file('lib/modules/load-order', Buffer.from(modules.map((m) => m.name).join('\n') + '\n')),
    ]);
    const target = join(root, version);
    const staging = join(work, 'out');
    mkdirSync(staging);
    renameSync(join(work, 'root', 'boot', `vmlinuz-${version}`), join(staging, 'vmlinuz'));
    writeFileSync(join(staging, 'initrd.img'), initrd);
    writeFileSync(join(staging, 'guest.json'), JSON.stringify({ version, kernelPackage: kernelPkg, modules: modules.map((m) => m.name) }) + '\n');
    rmSync(target, { recursive: true, force: true });
    renameSync(staging, target);
    writeFileSync(join(root, 'current'), version + '\n');
    return target;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** A lock directory, so that parallel test files build the guest once. */
function withLock(root, fn) {
  const lock = join(root, '.lock');
  const deadline = Date.now() + 300_000;
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      const age = Date.now() - (statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > 300_000) rmSync(lock, { recursive: true, force: true });
      else if (Date.now() > deadline) throw new Error(`timed out waiting for ${lock}`);
      else execFileSync('sleep', ['0.2']);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function cached(root) {
  const version = existsSync(join(root, 'current')) ? readFileSync(join(root, 'current'), 'utf8').trim() : '';
  const dir = join(root, version);
  return version && existsSync(join(dir, 'vmlinuz')) && existsSync(join(dir, 'initrd.img')) ? { dir, version } : undefined;
}

const root = cacheRoot();
mkdirSync(root, { recursive: true });
const found = cached(root) ?? withLock(root, () => cached(root) ?? { dir: build(root), version: readFileSync(join(root, 'current'), 'utf8').trim() });
process.stdout.write(JSON.stringify({ kernel: join(found.dir, 'vmlinuz'), initrd: join(found.dir, 'initrd.img'), version: found.version }) + '\n');
