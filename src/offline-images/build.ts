import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, mkdtemp, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { hashRepository, latestTag, type OfflineImageName } from './names.js';
import { DROP_SYS_ADMIN_SOURCE, FRR_START, HOST_DIRS, HOST_FILES, RECIPES, SSHD_CONFIG, SSH_START, frrCustomize, sshCustomize, type Recipe } from './recipes.js';

const exec = promisify(execFile);

/** A failure of an image build (a missing tool, no Docker engine, a package that cannot be fetched). */
export class ImageBuildError extends Error {}

/** Options of buildOfflineImages. */
export interface BuildOptions {
  /** Also tag each image `emuctl/NAME:latest` (what `emuctl image build` does; the tests use only the content-hash tag). */
  latest?: boolean;
  /** More tags per image. */
  extraTags?: Partial<Record<OfflineImageName, string[]>>;
  /** Told what happens ("building emuctl-test/frr:…"). */
  log?: (line: string) => void;
}

/** What one image build gave. */
export interface BuiltImage {
  name: OfflineImageName;
  /** The content-hash tag: names the recipe (package versions and build steps). */
  tag: string;
  /** Every tag the image now has from this call. */
  tags: string[];
  /** False when the content-hash tag was already in the engine. */
  built: boolean;
}

async function run(cmd: string, args: string[], opts: { cwd?: string } = {}): Promise<string> {
  try {
    return (await exec(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...opts })).stdout;
  } catch (err) {
    const e = err as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') throw new ImageBuildError(`${cmd} is not installed (scripts/setup.sh installs it)`);
    throw new ImageBuildError(`${cmd} ${args[0] ?? ''} failed: ${(e.stderr ?? e.message).trim().split('\n').slice(-3).join(' | ')}`);
  }
}

const asRoot = (cmd: string, args: string[]) => (process.getuid?.() === 0 ? run(cmd, args) : run('sudo', [cmd, ...args]));

/** The candidate versions of a recipe's packages (package lists fetched once when missing): they name the recipe. */
async function packageVersions(packages: string[]): Promise<string[]> {
  const read = async () => {
    const out = await run('apt-cache', ['policy', ...packages]);
    const versions = [...out.matchAll(/^(\S+):\n\s+Installed:.*\n\s+Candidate: (\S+)/gm)].map((m) => `${m[1]}=${m[2]}`);
    return versions.length === packages.length && !versions.some((v) => v.endsWith('=(none)')) ? versions : undefined;
  };
  let versions = await read();
  if (!versions) {
    await asRoot('apt-get', ['update', '-qq']);
    versions = await read();
  }
  if (!versions) throw new ImageBuildError(`Debian packages not found: ${packages.join(', ')}`);
  return versions;
}

/** The content-hash tag of a recipe: `emuctl-test/NAME:<12 hex>` over its package versions, command and texts. */
export async function contentTag(name: OfflineImageName, recipe: Recipe = RECIPES[name]): Promise<string> {
  const hash = createHash('sha256').update(JSON.stringify({ name, versions: await packageVersions(recipe.packages), cmd: recipe.cmd, texts: recipe.texts() }));
  return `${hashRepository(name)}:${hash.digest('hex').slice(0, 12)}`;
}

/** Whether the local Docker engine has the image. */
export async function imageExists(tag: string): Promise<boolean> {
  try {
    await exec('docker', ['image', 'inspect', '--format', '{{.Id}}', tag]);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new ImageBuildError('docker is not installed (scripts/setup.sh installs it)');
    return false;
  }
}

/** Runs `producer | docker import --change CMD - tag`. */
function importTar(producer: string[], tag: string, cmd: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const source = spawn(producer[0]!, producer.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
    const importer = spawn('docker', ['import', '--change', `CMD ${JSON.stringify(cmd)}`, '-', tag], { stdio: ['pipe', 'ignore', 'pipe'] });
    source.stdout.pipe(importer.stdin);
    // An importer that dies early (no engine) closes its stdin: its exit status says why, not EPIPE.
    importer.stdin.on('error', () => undefined);
    let errors = '';
    source.stderr.on('data', (d) => (errors += d));
    importer.stderr.on('data', (d) => (errors += d));
    let pending = 2;
    let failed = false;
    const done = (what: string) => (code: number | null) => {
      if (code !== 0 && !failed) {
        failed = true;
        reject(new ImageBuildError(`${what} exited with ${code}: ${errors.trim().split('\n').slice(-5).join(' | ')}`));
      }
      if (--pending === 0 && !failed) resolve();
    };
    for (const [child, what] of [[source, producer[0]!], [importer, 'docker import']] as const) {
      child.on('error', (err: NodeJS.ErrnoException) => {
        if (failed) return;
        failed = true;
        reject(new ImageBuildError(err.code === 'ENOENT' ? `${what.split(' ')[0]} is not installed (scripts/setup.sh installs it)` : err.message));
      });
      child.on('close', done(what));
    }
  });
}

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(() => true, () => false);
}

/** host: busybox-static on an empty root (`apt-get download`, `dpkg-deb -x`), its applets linked to /bin/busybox. */
async function buildHost(tag: string, recipe: Recipe): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), 'emuctl-host-image-'));
  try {
    await run('apt-get', ['download', ...recipe.packages], { cwd: work });
    const root = join(work, 'root');
    for (const deb of (await readdir(work)).filter((f) => f.endsWith('.deb'))) await run('dpkg-deb', ['-x', join(work, deb), root]);
    for (const dir of HOST_DIRS) await mkdir(join(root, dir), { recursive: true });
    await chmod(join(root, 'tmp'), 0o1777);
    const applets = (await run(join(root, 'bin', 'busybox'), ['--list-full'])).split('\n').filter(Boolean);
    for (const applet of applets) {
      const path = join(root, applet);
      if (applet === 'bin/busybox' || (await exists(path))) continue;
      await mkdir(join(path, '..'), { recursive: true });
      await symlink('/bin/busybox', path);
    }
    for (const [file, text] of Object.entries(HOST_FILES)) await writeFile(join(root, file), text);
    await importTar(['tar', '--numeric-owner', '--owner=0', '--group=0', '-C', root, '-c', '.'], tag, recipe.cmd);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** frr: a Debian bookworm root (mmdebstrap) with FRR, its start script and the CAP_SYS_ADMIN shim (gcc). */
async function buildFrr(tag: string, recipe: Recipe): Promise<void> {
  const hook = await mkdtemp(join(tmpdir(), 'emuctl-frr-image-'));
  try {
    const start = join(hook, 'docker-start');
    await writeFile(start, FRR_START, { mode: 0o755 });
    const shim = join(hook, 'drop-sys-admin.so');
    await run('gcc', ['-O2', '-Wall', '-shared', '-fPIC', '-o', shim, DROP_SYS_ADMIN_SOURCE, '-ldl']);
    const sshd = join(hook, 'emuctl.conf');
    await writeFile(sshd, SSHD_CONFIG, { mode: 0o644 });
    await chmod(hook, 0o755);
    await debootstrapImport(tag, recipe, 'apt', frrCustomize(start, shim, sshd));
  } finally {
    await rm(hook, { recursive: true, force: true });
  }
}

/** ssh: a small Debian bookworm root (mmdebstrap's essential variant) with sshd, python3 (for Ansible's modules) and iproute2. */
async function buildSsh(tag: string, recipe: Recipe): Promise<void> {
  const hook = await mkdtemp(join(tmpdir(), 'emuctl-ssh-image-'));
  try {
    const start = join(hook, 'ssh-start');
    await writeFile(start, SSH_START, { mode: 0o755 });
    const sshd = join(hook, 'emuctl.conf');
    await writeFile(sshd, SSHD_CONFIG, { mode: 0o644 });
    await chmod(hook, 0o755);
    await debootstrapImport(tag, recipe, 'essential', sshCustomize(start, sshd));
  } finally {
    await rm(hook, { recursive: true, force: true });
  }
}

/** A Debian bookworm root made by mmdebstrap with the recipe's packages and a customize hook, imported as `tag`. */
function debootstrapImport(tag: string, recipe: Recipe, variant: string, customize: string): Promise<void> {
  const producer = ['mmdebstrap', '--quiet', `--variant=${variant}`, `--include=${recipe.packages.join(',')}`, `--customize-hook=${customize}`, '--format=tar', 'bookworm', '-'];
  return importTar(process.getuid?.() === 0 ? producer : ['sudo', ...producer], tag, recipe.cmd);
}

const BUILDERS: Record<OfflineImageName, (tag: string, recipe: Recipe) => Promise<void>> = { host: buildHost, frr: buildFrr, ssh: buildSsh };

/** Whether the builder that took the lock (its pid is in the lock directory) is gone. */
async function holderGone(lock: string): Promise<boolean> {
  let pid: number;
  try {
    pid = Number(await readFile(join(lock, 'pid'), 'utf8'));
  } catch {
    return false; // taken a moment ago: the pid is not written yet
  }
  try {
    process.kill(pid, 0);
    return false;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** One builder at a time on this machine (test files run in parallel): a lock directory, taken with mkdir, holding the builder's pid. */
async function withLock<T>(fn: () => Promise<T>): Promise<T> {
  const lock = join(tmpdir(), 'emuctl-docker-images.lock');
  const deadline = Date.now() + 600_000;
  for (;;) {
    try {
      await mkdir(lock);
      await writeFile(join(lock, 'pid'), String(process.pid));
      break;
    } catch {
      let age = 0;
      try {
        age = Date.now() - (await stat(lock)).mtimeMs;
      } catch {
        continue;
      }
      if (age > 600_000 || (await holderGone(lock))) await rm(lock, { recursive: true, force: true });
      if (Date.now() > deadline) throw new ImageBuildError(`another image build holds ${lock}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await fn();
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}

/**
 * Builds the named offline images into the local Docker engine, offline from Debian packages, under their
 * content-hash tag (an image whose tag is already there is not built again), then adds the other tags asked for.
 */
export function buildOfflineImages(names: readonly OfflineImageName[], opts: BuildOptions = {}): Promise<BuiltImage[]> {
  return withLock(async () => {
    const out: BuiltImage[] = [];
    for (const name of names) {
      const tag = await contentTag(name);
      const built = !(await imageExists(tag));
      if (built) {
        opts.log?.(`building docker image ${tag}`);
        await BUILDERS[name](tag, RECIPES[name]);
      }
      const tags = [tag, ...(opts.latest ? [latestTag(name)] : []), ...(opts.extraTags?.[name] ?? [])];
      for (const extra of tags.slice(1)) await run('docker', ['tag', tag, extra]);
      out.push({ name, tag, tags, built });
    }
    return out;
  });
}
