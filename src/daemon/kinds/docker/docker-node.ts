import { lookup } from 'node:dns/promises';
import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { AdapterWiresNode } from '../../compute/nodes/adapter-wires-node.js';
import { nodeIdOr } from '../../compute/nodes/dataplane-node.js';
import type { NodeContext } from '../../compute/node-context.js';
import type { CreateOptions } from '../../compute/node-types.js';
import { nodeOwner } from '../../compute/ownership.js';
import { ConflictError, InvalidError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { makeDirs, pathSegments, PRIVATE_DIR_MODE, relativeBelow, withDir } from '../../safe-fs.js';
import type { FromSchema } from '../../schemas/validation.js';
import { moveIntoContainer, tapName, type ContainerInterface } from './container-interfaces.js';
import { LABEL, type DaemonIdentity } from './container-labels.js';
import { containerSpec, type VolumeMount } from './container-spec.js';
import { checkContainmentAtStart, checkHardening, checkProcessStatus, checkRegistryAddresses, restoredCapabilities, violationOf, type DockerPolicy } from './containment.js';
import { dockerReason, isDockerNotFound, type DockerEngine } from './docker-engine.js';
import { DEFAULT_EXEC_TIMEOUT_SECONDS, runExec, type ExecResult } from './docker-exec.js';
import { pullImage } from './docker-pull.js';
import type { DOCKER_CREATE_SCHEMA, DOCKER_UPDATE_SCHEMA } from './docker-schemas.js';
import { applySettings, checkConsoleType, defaultSettings, volumeMounts, type DockerSettings } from './docker-settings.js';
import { TelnetServer } from './telnet-server.js';

type DockerCreate = FromSchema<typeof DOCKER_CREATE_SCHEMA>;
type DockerUpdate = FromSchema<typeof DOCKER_UPDATE_SCHEMA>;

/** What every docker node of a compute shares. */
export interface DockerShared {
  engine: DockerEngine;
  identity: DaemonIdentity;
  log: Logger;
  /** The operator's widenings (docker_unsafe_caps, docker_registries). */
  policy: DockerPolicy;
}

/** Seconds Docker gives the main process to end on SIGTERM before SIGKILL. */
const STOP_GRACE_SECONDS = 3;
/** Settings that live in the container: a change makes a new one at the next start. */
const CONTAINER_SETTINGS: (keyof DockerSettings)[] = ['image', 'adapters', 'start_command', 'environment', 'extra_hosts', 'extra_volumes', 'cap_add', 'privileged', 'mgmt_ipv4'];

/**
 * A GNS3 docker node: a container on the compute's Docker engine, without a Docker network. Each
 * adapter is a 2-port dataplane wire whose emulator side is a TAP moved into the container as ethN,
 * so captures, filters and suspend on its ports are the dataplane's, as on any node.
 */
export class DockerNode extends AdapterWiresNode {
  readonly nodeType = 'docker';
  private console?: TelnetServer;
  private auxServer?: TelnetServer;
  /** Counts the container's runs: an exit seen late (after a reload's new start) is not taken for the new run's. */
  private run = 0;
  private stale = false;
  /** Stops following dataplane restarts (set while the container runs). */
  private unfollow?: () => void;

  private constructor(id: string, name: string, ctx: NodeContext, private readonly shared: DockerShared, public settings: DockerSettings,
    public consolePort: number | null, public auxPort: number | null, public containerId = '') {
    super(id, name, ctx, 'stopped', 'docker node');
  }

  /**
   * Creates the node and its container (not started). Docker must answer and hold the image (409
   * otherwise). A restored node's console type is checked at start, so its project opens. A client's
   * node that asks for more than containment.ts grants is a 400 naming the property; a restored
   * one (project, archive, snapshot) is kept without a container, and its start is a 409 naming it.
   */
  static async create(body: DockerCreate, ctx: NodeContext, shared: DockerShared, { restoring = false }: CreateOptions = {}): Promise<DockerNode> {
    const settings = applySettings(defaultSettings(body.image), body);
    if (restoring) settings.cap_add = restoredCapabilities(settings.cap_add, shared.policy);
    const refused = violationOf(settings, shared.policy);
    if (refused && !restoring) throw new InvalidError(refused.message);
    if (!restoring) checkConsoleType(settings.console_type);
    await shared.engine.ready();
    if (!refused) await imageOf(shared.engine.docker, settings.image, ctx, shared.policy);
    const id = nodeIdOr(body.node_id);
    const owner = nodeOwner(ctx.projectId, id);
    const consolePort = settings.console_type === 'telnet' ? await ctx.resources.consolePorts.allocate(owner, body.console ?? undefined) : null;
    // A restored node whose aux port went to another node gets a free one (the console is what its project names).
    const auxPort = settings.aux_type === 'none' ? null : await ctx.resources.consolePorts.allocate(owner, body.aux ?? undefined).catch((err) => (restoring && body.aux != null ? ctx.resources.consolePorts.allocate(owner) : Promise.reject(err)));
    const node = new DockerNode(id, body.name, ctx, shared, settings, consolePort, auxPort);
    await makeDirs(ctx.projectDir, relativeBelow(ctx.projectDir, node.dir));
    await node.wires.resize(settings.adapters);
    if (refused) {
      shared.log.warn(`docker node ${body.name} of project ${ctx.projectId} is kept stopped, without a container: ${refused.message}`);
      return node;
    }
    try {
      await node.createContainer();
    } catch (err) {
      await node.removeContainer().catch(() => undefined);
      await node.wires.resize(0);
      throw err;
    }
    return node;
  }

  get dir(): string {
    return join(this.ctx.projectDir, 'project-files', 'docker', this.id);
  }

  private get container(): Docker.Container {
    return this.shared.engine.docker.getContainer(this.containerId);
  }

  /** Changes settings; adapters and console ports only while stopped. What the container holds applies at the next start. */
  update(body: DockerUpdate): Promise<void> {
    return this.lock.run(async () => {
      const next = applySettings(this.settings, body);
      const refused = violationOf(next, this.shared.policy);
      // A restored node out of bounds may still be renamed or moved; a change to what it may do must bring it within them.
      if (refused && (body.image !== undefined || body.cap_add !== undefined || body.privileged !== undefined)) throw new InvalidError(refused.message);
      if (body.console_type !== undefined) checkConsoleType(next.console_type);
      const running = this.status !== 'stopped';
      const movesConsole = (body.console != null && body.console !== this.consolePort) || (body.aux != null && body.aux !== this.auxPort) || next.console_type !== this.settings.console_type || next.aux_type !== this.settings.aux_type;
      if (running && (next.adapters !== this.settings.adapters || movesConsole)) throw new ConflictError(`Stop ${this.name} before changing its adapters or console`);
      if (next.adapters < this.settings.adapters) for (const a of this.nios.keys()) if (a >= next.adapters) throw new ConflictError(`Adapter ${a} of ${this.name} has a link: remove it before removing the adapter`);
      if (next.console_type !== this.settings.console_type) {
        if (this.consolePort !== null) this.ctx.resources.consolePorts.release(this.consolePort, this.owner);
        this.consolePort = next.console_type === 'telnet' ? await this.ctx.resources.consolePorts.allocate(this.owner, body.console ?? undefined) : null;
      } else if (body.console != null && body.console !== this.consolePort) this.consolePort = await this.moveConsolePort(this.consolePort, body.console);
      if (next.aux_type !== this.settings.aux_type) {
        if (this.auxPort !== null) this.ctx.resources.consolePorts.release(this.auxPort, this.owner);
        this.auxPort = next.aux_type === 'telnet' ? await this.ctx.resources.consolePorts.allocate(this.owner, body.aux ?? undefined) : null;
      } else if (body.aux != null && body.aux !== this.auxPort) this.auxPort = await this.moveConsolePort(this.auxPort, body.aux);
      if (next.adapters !== this.settings.adapters) await this.wires.resize(next.adapters);
      if (CONTAINER_SETTINGS.some((k) => JSON.stringify(next[k]) !== JSON.stringify(this.settings[k])) || (body.name !== undefined && body.name !== this.name)) this.stale = true;
      if (body.name !== undefined) this.name = body.name;
      this.settings = next;
    });
  }

  /** Starts the container (a paused one resumes, as GNS3 does), its console, and moves its interfaces in. */
  override start(): Promise<void> {
    return this.lock.run(async () => {
      checkConsoleType(this.settings.console_type);
      checkContainmentAtStart(this.name, this.settings, this.shared.policy);
      await this.shared.engine.ready();
      const state = await this.inspectState();
      if (state?.Paused) return void (await this.unpauseUnlocked());
      if (state?.Running) return;
      if (!state || this.stale) await this.createContainer();
      try {
        if (this.consolePort !== null) {
          this.console = new TelnetServer(() => this.attach(), false, `console of docker node ${this.name} (port ${this.consolePort})`, this.ctx.log);
          await this.console.listen(this.ctx.bindHost, this.consolePort);
        }
        // Docker binds each volume from its path below the node directory at every start: none may have become a link since.
        for (const v of volumeMounts(this.settings.extra_volumes)) await makeDirs(this.ctx.projectDir, relativeBelow(this.ctx.projectDir, join(this.dir, v)));
        await this.container.start().catch((err) => {
          throw new ConflictError(`Docker could not start ${this.name}: ${dockerReason(err)}`);
        });
        const { State } = await this.container.inspect();
        // The kernel's own view of the first process: what Docker reported at create is true of it too.
        checkProcessStatus(this.name, this.settings, await readFile(`/proc/${State.Pid}/status`, 'utf8'));
        for (let a = 0; a < this.settings.adapters; a++) await this.wires.connect(a, { kind: 'tap', ifname: tapName(this.id, a) });
        await moveIntoContainer(State.Pid, this.containerInterfaces());
        await this.joinManagement(State.Pid);
        if (this.auxPort !== null) {
          this.auxServer = new TelnetServer(() => this.shell(), true, `aux console of docker node ${this.name} (port ${this.auxPort})`, this.ctx.log);
          await this.auxServer.listen(this.ctx.bindHost, this.auxPort);
        }
      } catch (err) {
        await this.halt();
        throw err;
      }
      this.watchExit(++this.run);
      this.unfollow = this.ctx.dataplane.onRestarted?.(() => void this.lock.run(() => this.replug()));
      this.status = 'started';
    });
  }

  override stop(): Promise<void> {
    return this.lock.run(() => this.halt());
  }

  /** GNS3's docker suspend: the container is paused (its interfaces stay, its frames wait). */
  override suspend(): Promise<void> {
    return this.lock.run(async () => {
      if (this.status === 'stopped') throw new ConflictError(`docker node ${this.name} is not running`);
      if (this.status === 'suspended') return;
      await this.container.pause().catch((err) => {
        throw new ConflictError(`Docker could not pause ${this.name}: ${dockerReason(err)}`);
      });
      this.status = 'suspended';
    });
  }

  /** Resumes a paused container (GNS3's unpause). */
  resume(): Promise<void> {
    return this.lock.run(() => this.unpauseUnlocked());
  }

  /** GNS3 restarts the container. */
  override async reload(): Promise<void> {
    await this.stop();
    await this.start();
  }

  /** Runs a command in the running container through Docker's exec API: its output and real exit status. */
  async exec(command: string[], timeoutSeconds = DEFAULT_EXEC_TIMEOUT_SECONDS): Promise<ExecResult> {
    if (this.status !== 'started') throw new ConflictError(`docker node ${this.name} is not started`);
    return runExec(this.container, command, timeoutSeconds);
  }

  /** Stops the container and removes it with its volumes' Docker records (their files stay in the node directory). */
  override async destroy(): Promise<void> {
    await this.lock.run(async () => {
      await this.halt();
      await this.removeContainer();
      this.nios.clear();
      await this.wires.resize(0);
    });
  }

  toJSON(): Record<string, unknown> {
    return {
      ...this.identityJSON(),
      console: this.consolePort,
      aux: this.auxPort,
      container_id: this.containerId,
      node_directory: this.dir,
      ...this.settings,
    };
  }

  /** Each adapter's TAP, its name in the container and the MAC custom_adapters give it, if any. */
  private containerInterfaces(): ContainerInterface[] {
    return Array.from({ length: this.settings.adapters }, (_, a) => {
      const mac = this.settings.custom_adapters.find((c) => c.adapter_number === a)?.mac_address;
      return { tap: tapName(this.id, a), name: `eth${a}`, ...(mac ? { mac } : {}) };
    });
  }

  private async unpauseUnlocked(): Promise<void> {
    if (this.status !== 'suspended') return;
    await this.container.unpause().catch((err) => {
      throw new ConflictError(`Docker could not unpause ${this.name}: ${dockerReason(err)}`);
    });
    this.status = 'started';
  }

  /** The container's state, or undefined when Docker no longer has it. */
  private async inspectState(): Promise<Docker.ContainerInspectInfo['State'] | undefined> {
    if (!this.containerId) return undefined;
    try {
      return (await this.container.inspect()).State;
    } catch (err) {
      if (isDockerNotFound(err)) return undefined;
      throw new ConflictError(`Docker could not inspect ${this.name}: ${dockerReason(err)}`);
    }
  }

  /** Stops the consoles, the wires' TAPs and the container; the node is stopped after, whatever failed. */
  private async halt(): Promise<void> {
    this.run++;
    this.unfollow?.();
    this.unfollow = undefined;
    try {
      await this.console?.close();
      await this.auxServer?.close();
      this.console = this.auxServer = undefined;
      for (let a = 0; a < this.wires.size; a++) await this.wires.disconnect(a);
      await this.ctx.management?.()?.detach(this.id);
      if (this.containerId) {
        await this.container.stop({ t: STOP_GRACE_SECONDS }).catch((err) => {
          const code = (err as { statusCode?: number }).statusCode;
          if (code !== 304 && code !== 404) this.shared.log.warn(`stopping container of ${this.name}: ${dockerReason(err)}`);
        });
      }
    } finally {
      this.status = 'stopped';
    }
  }

  /** With an address and its project's network on this compute: the management interface, before the container's command runs (its init waits for it). */
  private async joinManagement(pid: number): Promise<void> {
    if (!this.settings.mgmt_ipv4) return;
    const network = this.ctx.management?.();
    if (!network) throw new ConflictError(`docker node ${this.name} has the management address ${this.settings.mgmt_ipv4} but its project has no management network on this compute`);
    await network.attachContainer(this.id, pid, this.settings.mgmt_ipv4, this.settings.mgmt_ipv6);
  }

  /** A restarted dataplane made the TAPs again in the daemon's namespace: they go into the container again, in place of the dead ones. */
  private async replug(): Promise<void> {
    if (this.status === 'stopped') return;
    try {
      const { State } = await this.container.inspect();
      await moveIntoContainer(State.Pid, this.containerInterfaces(), { replace: true });
      this.ctx.log.info(`docker node ${this.name}: interfaces moved into its container again after the dataplane restart`);
    } catch (err) {
      this.ctx.log.error(`docker node ${this.name}: cannot move its interfaces in again after the dataplane restart: ${(err as Error).message}`);
    }
  }

  /** A container that ends on its own (its command exited) leaves the node stopped, as a crashed VM does. */
  private watchExit(run: number): void {
    void this.container.wait().then((result: { StatusCode?: number }) => {
      if (run !== this.run) return;
      this.ctx.log.warn(`docker node ${this.name} stopped on its own (exit code ${result.StatusCode})`);
      this.ctx.events.log('error', `docker node ${this.name} has stopped (exit code ${result.StatusCode})`, this.ctx.projectId);
      void this.lock.run(async () => {
        if (run === this.run) await this.halt();
      });
    }, () => undefined);
  }

  /** The main process's TTY (one stream: a TTY has no separate stderr). */
  private async attach(): Promise<Duplex> {
    return (await this.container.attach({ stream: true, stdin: true, stdout: true, stderr: true, hijack: true })) as Duplex;
  }

  /** GNS3's aux console: a shell by `docker exec`, one per client. */
  private async shell(): Promise<Duplex> {
    const exec = await this.container.exec({ Cmd: ['/bin/sh'], AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: true });
    return (await exec.start({ hijack: true, stdin: true, Tty: true })) as Duplex;
  }

  /**
   * (Re)creates the container from the settings: the old one and its volume records go first. A
   * node out of containment.ts's bounds gets none (409); a container Docker did not harden as asked
   * is removed (409). Docker fills each volume from the image at create, with the image's modes:
   * the volume directories are made private (0700) after.
   */
  private async createContainer(): Promise<void> {
    const docker = this.shared.engine.docker;
    checkContainmentAtStart(this.name, this.settings, this.shared.policy);
    await this.removeContainer();
    const image = await imageOf(docker, this.settings.image, this.ctx, this.shared.policy);
    const labels = this.shared.identity.labels(this.ctx.projectId, this.id);
    const volumes: VolumeMount[] = [];
    for (const [i, v] of volumeMounts(this.settings.extra_volumes).entries()) {
      const device = join(this.dir, v);
      await makeDirs(this.ctx.projectDir, relativeBelow(this.ctx.projectDir, device));
      // A named volume bound to the node's directory: Docker copies the image's files at that path into it while it is empty (GNS3's init does the same).
      const volume = await docker.createVolume({ Name: `emuctl-${this.id}-v${i}`, Driver: 'local', DriverOpts: { type: 'none', o: 'bind', device }, Labels: labels });
      volumes.push({ volume: volume.name, target: v });
    }
    try {
      const management = this.settings.mgmt_ipv4 ? this.ctx.management?.() : undefined;
      const mgmtInterface = this.settings.mgmt_ipv4 ? (management?.interfaceName ?? 'mgmt0') : undefined;
      const container = await docker.createContainer(containerSpec({ name: this.name, settings: this.settings, image, labels, volumes, mgmtInterface, mgmtRouteOut: management?.routeOut }));
      this.containerId = container.id;
      this.stale = false;
    } catch (err) {
      throw new ConflictError(`Docker could not create the container of ${this.name}: ${dockerReason(err)}`);
    }
    try {
      checkHardening(this.name, this.settings, await this.container.inspect(), await this.shared.engine.securityOptions());
      for (const v of volumeMounts(this.settings.extra_volumes)) {
        await withDir(this.ctx.projectDir, pathSegments(relativeBelow(this.ctx.projectDir, join(this.dir, v))), false, (dir) => chmod(dir.at('.'), PRIVATE_DIR_MODE));
      }
    } catch (err) {
      await this.removeContainer().catch(() => undefined);
      throw err;
    }
  }

  /** Removes the container and the Docker records of its volumes (their files stay in the node directory). */
  private async removeContainer(): Promise<void> {
    const docker = this.shared.engine.docker;
    if (this.containerId) {
      await this.container.remove({ force: true }).catch((err) => {
        if (!isDockerNotFound(err)) throw new ConflictError(`Docker could not remove the container of ${this.name}: ${dockerReason(err)}`);
      });
      this.containerId = '';
    }
    const labels = this.shared.identity.labels(this.ctx.projectId, this.id);
    const { Volumes } = await docker.listVolumes({ filters: JSON.stringify({ label: [LABEL.daemon, LABEL.node].map((k) => `${k}=${labels[k]}`) }) });
    for (const v of Volumes ?? []) await docker.getVolume(v.Name).remove().catch(() => undefined);
  }
}

/**
 * The image's description. A missing image is pulled from its registry, with progress in the
 * project's log notifications (GNS3 does the same); one that cannot be pulled is a 409 saying how to get it.
 */
async function imageOf(docker: Docker, image: string, ctx: NodeContext, policy: DockerPolicy): Promise<Docker.ImageInspectInfo> {
  const inspect = () => docker.getImage(image).inspect().catch((err) => {
    if (isDockerNotFound(err)) return undefined;
    throw new ConflictError(`Docker could not inspect image ${image}: ${dockerReason(err)}`);
  });
  const found = await inspect();
  if (found) return found;
  await checkRegistryAddresses(image, policy, (host) => lookup(host, { all: true, verbatim: true }));
  await pullImage(docker, image, (message) => {
    ctx.log.info(message);
    ctx.events.log('info', message, ctx.projectId);
  });
  const pulled = await inspect();
  if (!pulled) throw new ConflictError(`Docker image ${image} is still missing after a pull`);
  return pulled;
}
