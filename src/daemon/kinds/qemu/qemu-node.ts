import { makeDirs, relativeBelow, replaceFileUnder } from '../../safe-fs.js';
import { existsSync } from 'node:fs';
import { lstat, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ConflictError } from '../../errors.js';
import { failpoint } from '../../failpoints.js';
import type { QEMU_CREATE_SCHEMA, QEMU_UPDATE_SCHEMA, QemuDrive } from './schemas.js';
import type { FromSchema } from '../../schemas/validation.js';
import type { NioJson, NodeContext, NodeStatus } from '../../compute/node-context.js';
import type { ComputeNode } from '../../compute/node-types.js';
import { nodeOwner } from '../../compute/ownership.js';
import { copyNodeDirectory } from '../../compute/project-files.js';
import type { ProcessRegistry } from '../../compute/process/process-registry.js';
import { checkDiskFiles, createLinkedClone, extendDisk } from './disks.js';
import type { ImageStore } from './images.js';
import type { AccelChooser } from './qemu-accel.js';
import { resolveQemuImg } from './qemu-binaries.js';
import { AdapterWiresNode } from '../../compute/nodes/adapter-wires-node.js';
import { checkCommandLineValues, refusedAtStart, startCommand, type CommandLinePolicy } from './command-line-values.js';
import { netdevId, qemuArguments } from './qemu-command.js';
import { CONSOLE_SOCKET_FILE, QemuProcess, QMP_SOCKET_FILE, SAVED_STATE } from './qemu-process.js';
import { ConsoleRelay } from '../../compute/console-relay.js';
import { adapterOf, applySettings, defaultSettings, drivesOf, IMAGE_SETTINGS, md5Key, type QemuSettings } from './qemu-settings.js';
import { nodeIdOr } from '../../compute/nodes/dataplane-node.js';
import { joinManagement, type JoinedManagement } from './qemu-management.js';

/** A QEMU node create body, as QEMU_CREATE_SCHEMA accepts it. */
export type QemuCreate = FromSchema<typeof QEMU_CREATE_SCHEMA>;
type QemuUpdate = FromSchema<typeof QEMU_UPDATE_SCHEMA>;

/** What every QEMU VM of a compute shares. */
export interface QemuShared {
  images: ImageStore;
  accel: AccelChooser;
  registry?: ProcessRegistry;
  /** The daemon's environment: where qemu is looked up (children get only PATH of it). */
  env: NodeJS.ProcessEnv;
  /** qemu_unsafe_options: a node's `options` pass to QEMU unchecked. */
  unsafeOptions?: boolean;
}

/** Marks that on_close save_vm_state saved a snapshot to load at the next start. */
const SAVED_STATE_MARK = 'saved-vm-state';

/**
 * A QEMU VM: a supervised qemu process whose adapters are UDP tunnels into dataplane wires, so
 * captures, filters and NIO changes on a running VM are dataplane operations, as for any node.
 */
export class QemuNode extends AdapterWiresNode {
  readonly nodeType = 'qemu';
  private process?: QemuProcess;
  private md5s: Record<string, string | null> = {};
  private accel: 'kvm' | 'tcg' | null = null;
  private monitorStatus: string | null = null;
  private commandLine = '';
  /** The serial console's TCP port, served by emuctl in front of QEMU's unix socket while the VM runs. */
  private relay?: ConsoleRelay;
  /** The management NIC of the running VM, when its project has a management network. */
  private management?: JoinedManagement;

  private constructor(id: string, name: string, ctx: NodeContext, private readonly shared: QemuShared, public settings: QemuSettings, public consolePort: number | null) {
    super(id, name, ctx, 'stopped', 'QEMU VM');
  }

  /**
   * Creates the node (not started): checks its images, takes a console port, makes its directory and
   * one wire per adapter. The console port is held by the node's owner: when a step fails, the compute
   * releases it and removes the directory (LocalCompute.createNode); the wires come last and are made
   * all or none. A node restored from a project or an archive (`restoring`) is not held to the
   * command-line rules here, so that the project opens: its start refuses what they refuse.
   */
  static async create(body: QemuCreate, ctx: NodeContext, shared: QemuShared, { restoring = false } = {}): Promise<QemuNode> {
    const id = nodeIdOr(body.node_id);
    const settings = applySettings(defaultSettings(id), body, id);
    if (!restoring) checkCommandLineValues(body.name, settings, policyOf(shared));
    await checkImages(settings, shared.images);
    const wantsConsole = settings.console_type !== 'none';
    const owner = nodeOwner(ctx.projectId, id);
    const consolePort = wantsConsole ? await ctx.resources.consolePorts.allocate(owner, body.console ?? undefined) : null;
    failpoint('qemu.create.after-console');
    const node = new QemuNode(id, body.name, ctx, shared, settings, consolePort);
    await makeDirs(ctx.projectDir, relativeBelow(ctx.projectDir, node.dir));
    await node.refreshMd5s();
    failpoint('qemu.create.after-directory');
    await node.setWires(settings.adapters);
    return node;
  }

  get dir(): string {
    return join(this.ctx.projectDir, 'project-files', 'qemu', this.id);
  }

  private get running(): boolean {
    return this.process?.isRunning ?? false;
  }

  /** Changes settings; adapters and the console port only while stopped. Changed disk images drop their overlay. */
  update(body: QemuUpdate): Promise<void> {
    return this.lock.run(async () => {
      const next = applySettings(this.settings, body, this.id);
      checkCommandLineValues(typeof body.name === 'string' ? body.name : this.name, next, policyOf(this.shared));
      await checkImages(next, this.shared.images);
      if (this.running && (next.adapters !== this.settings.adapters || (body.console !== undefined && body.console !== this.consolePort))) {
        throw new ConflictError(`Stop ${this.name} before changing its adapters or console port`);
      }
      if (next.adapters !== this.settings.adapters) await this.setWires(next.adapters);
      if (body.console !== undefined && body.console !== null && body.console !== this.consolePort) {
        this.consolePort = await this.moveConsolePort(this.consolePort, body.console as number);
      }
      for (const d of ['hda', 'hdb', 'hdc', 'hdd'] as QemuDrive[]) {
        if (next[`${d}_disk_image`] !== this.settings[`${d}_disk_image`]) await rm(this.overlayOf(d), { force: true });
      }
      if (typeof body.name === 'string') this.name = body.name;
      this.settings = next;
      await this.refreshMd5s();
    });
  }

  /** A running VM sees the adapter's link come up. */
  override async addNio(adapter: number, port: number, nio: NioJson): Promise<NioJson> {
    const added = await super.addNio(adapter, port, nio);
    await this.syncLink(adapter);
    return added;
  }

  /** A running VM sees the adapter's link go down. */
  override async removeNio(adapter: number, port: number): Promise<void> {
    await super.removeNio(adapter, port);
    await this.syncLink(adapter);
  }

  override start(): Promise<void> {
    return this.lock.run(async () => {
      if (this.running && this.status === 'suspended') return void (await this.resumeUnlocked());
      if (this.running) return;
      const s = this.settings;
      if (s.cpu_throttling > 0) throw new ConflictError('cpu_throttling is not supported by this compute: set it to 0');
      if (s.console_type === 'spice' || s.console_type === 'spice+agent') throw new ConflictError(`console_type ${s.console_type} is not supported by this compute (telnet, vnc or none)`);
      const { binary, options } = await startCommand(this.name, s, policyOf(this.shared), this.shared.env);
      const drives = await this.prepareDrives();
      const image = (name: string, what: string) => refusedAtStart(async () => (name ? this.shared.images.existing(name, what) : undefined));
      const accel = this.shared.accel.choose(s.platform);
      const tunnels = await this.wires.plug();
      try {
        if (s.console_type === 'telnet' && this.consolePort !== null) {
          this.relay = new ConsoleRelay(join(this.dir, CONSOLE_SOCKET_FILE), `console of QEMU VM ${this.name} (port ${this.consolePort})`, this.ctx.log);
          await this.relay.listen(this.ctx.bindHost, this.consolePort);
        }
        this.management = await joinManagement(this, this.ctx.management?.());
        const args = qemuArguments({
          name: this.name, uuid: this.id, ram: s.ram, cpus: s.cpus, accel, bootPriority: s.boot_priority, drives,
          cdrom: await this.checkedDisk(await image(s.cdrom_image, 'cdrom image')), bios: await image(s.bios_image, 'bios image'),
          kernel: await image(s.kernel_image, 'kernel image'), initrd: await image(s.initrd, 'initrd'), append: s.kernel_command_line || undefined,
          console: this.consolePort === null ? undefined
            : s.console_type === 'telnet' ? { type: 'telnet', socket: CONSOLE_SOCKET_FILE }
              : s.console_type === 'vnc' ? { type: 'vnc', host: this.ctx.bindHost, port: this.consolePort } : undefined,
          qmpSocket: QMP_SOCKET_FILE, // relative to QEMU's cwd, the node directory: sun_path is short
          adapters: Array.from({ length: s.adapters }, (_, n) => ({ ...adapterOf(s, n), tunnel: tunnels[n] })),
          management: this.management?.nic,
          options,
          loadvm: s.on_close === 'save_vm_state' && existsSync(join(this.dir, SAVED_STATE_MARK)) ? SAVED_STATE : undefined,
        });
        const proc = new QemuProcess({
          binary, args, nodeDir: this.dir, consoleSocket: s.console_type === 'telnet' && this.consolePort !== null ? CONSOLE_SOCKET_FILE : undefined,
          processPriority: s.process_priority, registry: this.shared.registry, env: this.shared.env, label: `qemu ${this.name} (${this.id})`,
        });
        proc.once('exit', (exit) => {
          const how = exit.signal ? `signal ${exit.signal}` : `exit code ${exit.code}`;
          this.ctx.log.warn(`QEMU VM ${this.name} stopped on its own (${how})${exit.logTail ? `; last lines of its stderr: ${exit.logTail.split('\n').slice(-5).join(' | ')}` : ''}`);
          this.ctx.events.log('error', `QEMU VM ${this.name} has stopped (${how})${exit.logTail ? `\n${exit.logTail}` : ''}`, this.ctx.projectId);
          void this.lock.run(() => this.unplug());
        });
        await proc.start();
        this.process = proc;
        this.accel = accel;
        this.commandLine = [binary, ...args].map(shellQuote).join(' ');
        proc.qmp?.on('event', (event) => {
          if (event === 'STOP') this.monitorStatus = 'paused';
          if (event === 'RESUME') this.monitorStatus = 'running';
        });
        for (let a = 0; a < s.adapters; a++) await this.syncLink(a);
        this.monitorStatus = 'running';
        this.setRunStatus('started');
      } catch (err) {
        await this.unplug();
        throw err;
      }
    });
  }

  override stop(): Promise<void> {
    return this.lock.run(async () => {
      if (!this.process) return;
      const saving = this.settings.on_close === 'save_vm_state' && this.running;
      await this.process.stop(this.settings.on_close);
      if (saving) await replaceFileUnder(this.ctx.projectDir, relativeBelow(this.ctx.projectDir, join(this.dir, SAVED_STATE_MARK)), new Date().toISOString());
      await this.unplug();
    });
  }

  override suspend(): Promise<void> {
    return this.lock.run(async () => {
      if (!this.running) throw new ConflictError(`QEMU VM ${this.name} is not running`);
      await this.process!.suspend();
      this.monitorStatus = 'paused';
      this.setRunStatus('suspended');
    });
  }

  /** Resumes a suspended VM (QMP cont). */
  resume(): Promise<void> {
    return this.lock.run(() => this.resumeUnlocked());
  }

  /** A running VM is reset (QMP system_reset), as GNS3 does; a stopped one starts. */
  override async reload(): Promise<void> {
    if (!this.running) return this.start();
    await this.lock.run(() => this.process!.qmp!.execute('system_reset'));
  }

  /** Grows a disk's overlay (or image, without linked clones) by `extendMb` megabytes. */
  resizeDisk(drive: QemuDrive, extendMb: number): Promise<void> {
    return this.lock.run(async () => {
      if (this.running) throw new ConflictError(`Stop ${this.name} before resizing its disk`);
      const [prepared] = (await this.prepareDrives()).filter((d) => d.drive === drive);
      if (!prepared) throw new ConflictError(`${this.name} has no ${drive} disk image`);
      await extendDisk(resolveQemuImg(this.shared.env), prepared.file, extendMb, this.shared.env);
    });
  }

  /** GNS3 duplicate: the destination node (already created) gets a copy of this node's directory. */
  async copyFilesTo(destination: ComputeNode): Promise<void> {
    const dest = destination as unknown as QemuNode;
    if (this.running || dest.running) throw new ConflictError('Stop both VMs before duplicating');
    await copyNodeDirectory(this.dir, dest.dir, (src) => src.endsWith(QMP_SOCKET_FILE) || src.endsWith(CONSOLE_SOCKET_FILE));
  }

  /** Stops the VM and removes its wires; its ports go back with the node's owner. */
  override async destroy(): Promise<void> {
    await this.stop();
    await this.lock.run(async () => {
      this.nios.clear();
      await this.setWires(0, true);
    });
  }

  toJSON(): Record<string, unknown> {
    return {
      ...this.identityJSON(),
      console: this.consolePort,
      node_directory: this.dir,
      command_line: this.running ? this.commandLine : '',
      ...this.settings,
      qemu_path: this.settings.qemu_path || `qemu-system-${this.settings.platform || 'x86_64'}`,
      ...this.md5s,
      accel: this.running ? this.accel : null,
      monitor_status: this.running ? this.monitorStatus : null,
    };
  }

  /** One place for status changes; the `status` setter publishes each change as `node.updated`. */
  private setRunStatus(status: NodeStatus): void {
    this.status = status;
  }

  private overlayOf(drive: QemuDrive): string {
    return join(this.dir, `${drive}_disk.qcow2`);
  }

  /** Creates or removes wires until there is one per adapter; an adapter with a NIO cannot go. */
  private async setWires(count: number, force = false): Promise<void> {
    for (const a of this.nios.keys()) if (a >= count && !force) throw new ConflictError(`Adapter ${a} of ${this.name} has a link: remove it before removing the adapter`);
    await this.wires.resize(count);
  }

  /** Forgets the process and frees its tunnels (after it ended). */
  private async unplug(): Promise<void> {
    this.process = undefined;
    this.accel = null;
    this.monitorStatus = null;
    this.commandLine = '';
    await this.relay?.close();
    this.relay = undefined;
    const management = this.management;
    this.management = undefined;
    await management?.network.detach(this.id).catch((err: Error) => this.ctx.log.error(`QEMU VM ${this.name}: removing its management NIC: ${err.message}`));
    await this.wires.unplug();
    this.setRunStatus('stopped');
  }

  private async resumeUnlocked(): Promise<void> {
    if (!this.running) throw new ConflictError(`QEMU VM ${this.name} is not running`);
    await this.process!.resume();
    this.monitorStatus = 'running';
    this.setRunStatus('started');
  }

  /** The link state QEMU shows the guest follows whether the adapter has a NIO. */
  private async syncLink(adapter: number): Promise<void> {
    if (this.running) await this.process!.setLink(netdevId(adapter), this.nios.has(adapter));
  }

  /** Disk files to run: the image itself, or (linked_clone) a qcow2 overlay in the node directory backed by it. */
  private async prepareDrives(): Promise<{ drive: QemuDrive; file: string; interface: string }[]> {
    const out: { drive: QemuDrive; file: string; interface: string }[] = [];
    for (const d of drivesOf(this.settings)) {
      const image = await this.shared.images.existing(d.image, `${d.drive} disk image`);
      let file = image;
      if (this.settings.linked_clone) {
        file = this.overlayOf(d.drive);
        // qemu-img would write through a link; QEMU would open one: an overlay is a plain file or nothing.
        const overlay = await lstat(file).catch(() => undefined);
        if (overlay && !overlay.isFile()) throw new ConflictError(`${file} is not a plain file: remove it to start ${this.name}`);
        if (!overlay) await createLinkedClone(resolveQemuImg(this.shared.env), image, file, this.shared.env);
      }
      await this.checkedDisk(file);
      out.push({ drive: d.drive, file, interface: d.interface });
    }
    return out;
  }

  /** A disk file QEMU will open (and probe), once every file it names is known to be in the images or the node directory. */
  private async checkedDisk(file: string | undefined): Promise<string | undefined> {
    if (file) await checkDiskFiles(resolveQemuImg(this.shared.env), file, [this.shared.images.dir, this.dir], this.shared.env);
    return file;
  }

  private async refreshMd5s(): Promise<void> {
    for (const key of IMAGE_SETTINGS) {
      const name = this.settings[key];
      this.md5s[md5Key(key)] = name ? await this.shared.images.md5OrNull(this.shared.images.pathOf(name)) : null;
    }
  }
}

function policyOf(shared: QemuShared): CommandLinePolicy {
  return { images: shared.images, unsafeOptions: shared.unsafeOptions === true };
}

/** Every image a node names must exist in the images directory (409 naming it), and stay inside it (400). */
async function checkImages(s: QemuSettings, images: ImageStore): Promise<void> {
  for (const key of IMAGE_SETTINGS) if (s[key]) await images.existing(s[key], key.replace(/_/g, ' '));
}

/** Quotes an argument for display, so the command line shown can be pasted into a shell. */
function shellQuote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}
