import Docker from 'dockerode';
import { ConflictError } from '../../errors.js';

/** How long the engine's security options are taken as known. */
const SECURITY_OPTIONS_TTL_MS = 30_000;

/** GNS3's minimum Docker Engine API version. */
export const MIN_API_VERSION = '1.25';

/** How dockerode reaches the engine: DOCKER_HOST (unix:// or tcp://), else /var/run/docker.sock. */
export function dockerOptions(env: NodeJS.ProcessEnv): Docker.DockerOptions {
  const host = env.DOCKER_HOST;
  if (!host) return { socketPath: '/var/run/docker.sock' };
  if (host.startsWith('unix://')) return { socketPath: host.slice('unix://'.length) };
  const url = new URL(host.replace(/^tcp:/, 'http:'));
  return { host: url.hostname, port: Number(url.port || 2375), protocol: 'http' };
}

function versionAtLeast(version: string, minimum: string): boolean {
  const [a, b] = [version, minimum].map((v) => v.split('.').map(Number));
  return a[0] > b[0] || (a[0] === b[0] && (a[1] ?? 0) >= (b[1] ?? 0));
}

/**
 * The Docker engine this compute runs containers on. Whether it is usable (reachable, API recent
 * enough) is asked again on each use, so a Docker started after the daemon is found.
 */
export class DockerEngine {
  readonly docker: Docker;
  private usable = false;
  private checking: Promise<void> | null = null;
  private security?: { at: number; options: Promise<string[]> };

  constructor(env: NodeJS.ProcessEnv) {
    this.docker = new Docker(dockerOptions(env));
    void this.ready().catch(() => undefined);
  }

  /** The last check's answer (capabilities list the kind only when Docker answered). */
  available(): boolean {
    return this.usable;
  }

  /** Resolves when Docker answers with API ≥ 1.25; ConflictError with one line saying what is missing otherwise. */
  ready(): Promise<void> {
    this.checking ??= this.check().finally(() => (this.checking = null));
    return this.checking;
  }

  /**
   * The engine's security options (`name=seccomp,profile=default`...), as `docker info` lists them.
   * `docker info` is slow on a busy engine and these change only when dockerd restarts: asked at most every 30 s.
   */
  securityOptions(): Promise<string[]> {
    if (!this.security || Date.now() - this.security.at > SECURITY_OPTIONS_TTL_MS) {
      const options = this.docker.info().then((info: { SecurityOptions?: string[] }) => info.SecurityOptions ?? [], (err) => {
        this.security = undefined;
        throw new ConflictError(`Docker could not tell its security options: ${dockerReason(err)}`);
      });
      this.security = { at: Date.now(), options };
    }
    return this.security.options;
  }

  private async check(): Promise<void> {
    let version: Docker.DockerVersion;
    try {
      version = await this.docker.version();
    } catch (err) {
      this.usable = false;
      throw new ConflictError(`Docker is not available on this compute: ${(err as Error).message} (install Docker and start dockerd, or set DOCKER_HOST)`);
    }
    this.usable = versionAtLeast(version.ApiVersion, MIN_API_VERSION);
    if (!this.usable) throw new ConflictError(`Docker API ${version.ApiVersion} is too old: docker nodes need API ${MIN_API_VERSION} or later (Docker 1.13+)`);
  }
}

/** Docker's own reason in a failed call (its JSON `message`), for a 409 that quotes it. */
export function dockerReason(err: unknown): string {
  const e = err as { json?: { message?: string }; reason?: string; message?: string };
  return (e.json?.message ?? e.message ?? String(err)).trim();
}

/** A 404 from Docker (no such container, image, volume). */
export function isDockerNotFound(err: unknown): boolean {
  return (err as { statusCode?: number }).statusCode === 404;
}
