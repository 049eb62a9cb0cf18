#!/usr/bin/env node
// Builds the docker images the tests, benchmarks and examples use, offline, from Debian packages,
// and loads them into the local Docker engine under a tag that names their recipe:
//   node scripts/build-docker-images.mjs host frr
// prints {"host": "emuctl-test/host:<recipe>", "frr": "emuctl-test/frr:<recipe>"} on stdout.
// An image whose tag is already in the engine is not built again.
//
// host: busybox-static (sh, ip, ping, udhcpc, nc, wget…) on an empty root: `apt-get download` and
//       `dpkg-deb -x`, no root file system tool. CMD is `sh`, so its console is a shell.
// frr:  a Debian bookworm root file system with frr, iproute2, iputils-ping, procps and tcpdump
//       (mmdebstrap), and /usr/lib/frr/docker-start, which starts the daemons that
//       /etc/frr/daemons enables and then runs a shell on the console. FRR 8.4 dies without
//       CAP_SYS_ADMIN, which emuctl no longer grants: docker-images/drop-sys-admin.c, compiled here
//       (gcc) and listed in /etc/ld.so.preload, clears it from what the daemons ask libcap for.
// Both are `docker import`ed: a root file system and a command, no registry involved.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const FRR_START = `#!/bin/sh
# Starts the FRR daemons that /etc/frr/daemons enables (watchfrr keeps them up), then gives the console a shell.
/usr/lib/frr/frrinit.sh start
exec /bin/bash
`;

/** The LD_PRELOAD shim of the FRR image (its source names the recipe too). */
const DROP_SYS_ADMIN = join(dirname(fileURLToPath(import.meta.url)), 'docker-images', 'drop-sys-admin.c');

const RECIPES = {
  host: {
    packages: ['busybox-static'],
    build: buildHost,
    cmd: ['/bin/sh'],
  },
  frr: {
    packages: ['frr', 'iproute2', 'iputils-ping', 'procps', 'tcpdump'],
    build: buildFrr,
    cmd: ['/usr/lib/frr/docker-start'],
    sources: [DROP_SYS_ADMIN],
  },
};

function sh(cmd, args, opts = {}) {
  return execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024, ...opts });
}

function asRoot(cmd, args) {
  return process.getuid?.() === 0 ? sh(cmd, args) : sh('sudo', [cmd, ...args]);
}

/** The candidate versions of a recipe's packages (package lists fetched once when missing): they name the recipe. */
function packageVersions(packages) {
  const read = () => {
    const out = sh('apt-cache', ['policy', ...packages]);
    const versions = [...out.matchAll(/^(\S+):\n\s+Installed:.*\n\s+Candidate: (\S+)/gm)].map((m) => `${m[1]}=${m[2]}`);
    return versions.length === packages.length && !versions.some((v) => v.endsWith('=(none)')) ? versions : undefined;
  };
  let versions = read();
  if (!versions) {
    asRoot('apt-get', ['update', '-qq']);
    versions = read();
  }
  if (!versions) throw new Error(`Debian packages not found: ${packages.join(', ')}`);
  return versions;
}

function tagOf(name, recipe) {
  const hash = createHash('sha256').update(JSON.stringify({ name, versions: packageVersions(recipe.packages), cmd: recipe.cmd, start: FRR_START, build: recipe.build.toString(), sources: (recipe.sources ?? []).map((f) => readFileSync(f, 'utf8')) }));
  return `emuctl-test/${name}:${hash.digest('hex').slice(0, 12)}`;
}

function imageExists(tag) {
  try {
    sh('docker', ['image', 'inspect', '--format', '{{.Id}}', tag]);
    return true;
  } catch {
    return false;
  }
}

/** Runs `producer | docker import --change CMD - tag`. */
function importTar(producer, tag, cmd) {
  return new Promise((resolve, reject) => {
    const source = spawn(producer[0], producer.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    const importer = spawn('docker', ['import', '--change', `CMD ${JSON.stringify(cmd)}`, '-', tag], { stdio: ['pipe', 'ignore', 'pipe'] });
    source.stdout.pipe(importer.stdin);
    // An importer that dies early (no engine) closes its stdin: its exit status says why, not EPIPE.
    importer.stdin.on('error', () => undefined);
    let errors = '';
    source.stderr.on('data', (d) => (errors += d));
    importer.stderr.on('data', (d) => (errors += d));
    let pending = 2;
    let failed = false;
    const done = (what) => (code) => {
      if (code !== 0 && !failed) {
        failed = true;
        reject(new Error(`${what} exited with ${code}: ${errors.trim().split('\n').slice(-5).join(' | ')}`));
      }
      if (--pending === 0 && !failed) resolve();
    };
    source.on('close', done(producer[0]));
    importer.on('close', done('docker import'));
  });
}

async function buildHost(tag, recipe) {
  const work = mkdtempSync(join(tmpdir(), 'emuctl-host-image-'));
  try {
    sh('apt-get', ['download', ...recipe.packages], { cwd: work });
    const root = join(work, 'root');
    for (const deb of readdirSync(work).filter((f) => f.endsWith('.deb'))) sh('dpkg-deb', ['-x', join(work, deb), root]);
    for (const dir of ['bin', 'sbin', 'usr/bin', 'usr/sbin', 'etc', 'tmp', 'root', 'proc', 'sys', 'dev', 'var/run']) mkdirSync(join(root, dir), { recursive: true });
    chmodSync(join(root, 'tmp'), 0o1777);
    const applets = sh(join(root, 'bin', 'busybox'), ['--list-full']).split('\n').filter(Boolean);
    for (const applet of applets) {
      const path = join(root, applet);
      if (applet === 'bin/busybox' || exists(path)) continue;
      mkdirSync(join(path, '..'), { recursive: true });
      symlinkSync('/bin/busybox', path);
    }
    writeFileSync(join(root, 'etc', 'passwd'), 'root:x:0:0:root:/root:/bin/sh\n');
    writeFileSync(join(root, 'etc', 'group'), 'root:x:0:\n');
    await importTar(['tar', '--numeric-owner', '--owner=0', '--group=0', '-C', root, '-c', '.'], tag, recipe.cmd);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

async function buildFrr(tag, recipe) {
  const hook = mkdtempSync(join(tmpdir(), 'emuctl-frr-image-'));
  try {
    const start = join(hook, 'docker-start');
    writeFileSync(start, FRR_START, { mode: 0o755 });
    const shim = join(hook, 'drop-sys-admin.so');
    sh('gcc', ['-O2', '-Wall', '-shared', '-fPIC', '-o', shim, DROP_SYS_ADMIN, '-ldl']);
    chmodSync(hook, 0o755);
    const customize = [
      `cp ${start} "$1/usr/lib/frr/docker-start" && chmod 755 "$1/usr/lib/frr/docker-start"`,
      `mkdir -p "$1/usr/lib/emuctl" && cp ${shim} "$1/usr/lib/emuctl/drop-sys-admin.so" && chmod 644 "$1/usr/lib/emuctl/drop-sys-admin.so"`,
      `echo /usr/lib/emuctl/drop-sys-admin.so > "$1/etc/ld.so.preload"`,
      // watchfrr loads frr.conf (vtysh -b) in a job it kills after its restart timeout, 20 s by default: with ~100
      // containers booting on 2 cores the job takes longer and the router is left unconfigured (issue 33).
      `echo 'watchfrr_options="-T 600"' >> "$1/etc/frr/daemons"`,
    ].join(' && ');
    const producer = ['mmdebstrap', '--quiet', '--variant=apt', `--include=${recipe.packages.join(',')}`, `--customize-hook=${customize}`, '--format=tar', 'bookworm', '-'];
    await importTar(process.getuid?.() === 0 ? producer : ['sudo', ...producer], tag, recipe.cmd);
  } finally {
    rmSync(hook, { recursive: true, force: true });
  }
}

function exists(path) {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Whether the builder that took the lock (its pid is in the lock directory) is gone. */
function holderGone(lock) {
  let pid;
  try {
    pid = Number(readFileSync(join(lock, 'pid'), 'utf8'));
  } catch {
    return false; // taken a moment ago: the pid is not written yet
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return err.code === 'ESRCH';
  }
}

/** One builder at a time on this machine (test files run in parallel): a lock directory, taken with mkdir, holding the builder's pid. */
async function withLock(fn) {
  const lock = join(tmpdir(), 'emuctl-docker-images.lock');
  const deadline = Date.now() + 600_000;
  for (;;) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch {
      let age = 0;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch {
        continue;
      }
      if (age > 600_000 || holderGone(lock)) rmSync(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new Error(`another image build holds ${lock}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

const names = process.argv.slice(2);
if (!names.length || names.some((n) => !(n in RECIPES))) {
  process.stderr.write(`usage: build-docker-images.mjs ${Object.keys(RECIPES).join('|')}...\n`);
  process.exit(2);
}
try {
  const tags = await withLock(async () => {
    const out = {};
    for (const name of names) {
      const recipe = RECIPES[name];
      const tag = tagOf(name, recipe);
      if (!imageExists(tag)) {
        process.stderr.write(`building docker image ${tag}\n`);
        await recipe.build(tag, recipe);
      }
      out[name] = tag;
    }
    return out;
  });
  process.stdout.write(JSON.stringify(tags) + '\n');
} catch (err) {
  process.stderr.write(`build-docker-images: ${err.message}\n`);
  process.exit(1);
}
