import { mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ConflictError, NotFoundError, storageError } from '../errors.js';
import { writeFileAtomic } from '../atomic-write.js';
import { GroupCommit } from './group-commit.js';

/**
 * GNS3's GNS3 VM settings as a fresh GNS3 2.2.42 controller has them (the VM is off): every field
 * it answers, since gns3-gui's preferences read each one (a missing `allocate_vcpus_ram` is a KeyError there).
 */
export const GNS3VM_DEFAULTS = {
  vmname: null as string | null,
  when_exit: 'stop',
  headless: false,
  enable: false,
  engine: 'vmware',
  allocate_vcpus_ram: true,
  ram: 2048,
  vcpus: 1,
  port: 80,
};
const IOU_LICENSE_DEFAULTS = { iourc_content: '', license_check: true };

/** The virtualisation engines GNS3 offers for its VM; emuctl runs none of them. */
const ENGINES = [
  { engine_id: 'vmware', name: 'VMware Workstation / Player' },
  { engine_id: 'virtualbox', name: 'VirtualBox' },
  { engine_id: 'remote', name: 'Remote' },
];

/**
 * Settings the GNS3 GUI reads and writes when it connects (GNS3 VM, IOU licence). emuctl keeps
 * them, persisted, so that the GUI finds what it saved; it runs no GNS3 VM and no IOU.
 */
export class GuiSettings {
  private gns3vm = { ...GNS3VM_DEFAULTS };
  private iouLicense = { ...IOU_LICENSE_DEFAULTS };
  /** A change is applied, written, and undone if the write fails (507). */
  private readonly writer = new GroupCommit(() => this.save(), (err) => storageError(this.file ?? 'GUI settings', err));

  constructor(private readonly file?: string) {}

  async load(): Promise<void> {
    if (!this.file) return;
    try {
      const saved = JSON.parse(await readFile(this.file, 'utf8')) as { gns3vm?: object; iou_license?: object };
      this.gns3vm = { ...GNS3VM_DEFAULTS, ...saved.gns3vm };
      this.iouLicense = { ...IOU_LICENSE_DEFAULTS, ...saved.iou_license };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read ${this.file}: ${(err as Error).message}`);
    }
  }

  getGns3vm(): Record<string, unknown> {
    return { ...this.gns3vm };
  }

  /** Keeps GNS3 VM settings; enabling the VM is a 409, since emuctl cannot run one. */
  async setGns3vm(change: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (change.enable === true) throw new ConflictError('emuctl does not run a GNS3 VM: its nodes run on this host or on remote computes');
    const before = this.gns3vm;
    this.gns3vm = { ...this.gns3vm, ...change };
    await this.writer.commit(() => (this.gns3vm = before));
    return this.getGns3vm();
  }

  /** GNS3's engine list, each marked as unavailable here. */
  engines(): Record<string, unknown>[] {
    return ENGINES.map((e) => ({
      ...e,
      description: 'Not available: emuctl does not run a GNS3 VM.',
      support_when_exit: false,
      support_headless: false,
      support_ram: false,
    }));
  }

  /** The VMs of an engine: none, for the engines GNS3 knows; 404 for others. */
  engineVms(engine: string): unknown[] {
    if (!ENGINES.some((e) => e.engine_id === engine)) throw new NotFoundError(`Unknown engine ${engine} (known: ${ENGINES.map((e) => e.engine_id).join(', ')})`);
    return [];
  }

  getIouLicense(): Record<string, unknown> {
    return { ...this.iouLicense };
  }

  async setIouLicense(change: Record<string, unknown>): Promise<Record<string, unknown>> {
    const before = this.iouLicense;
    this.iouLicense = { ...this.iouLicense, ...change };
    await this.writer.commit(() => (this.iouLicense = before));
    return this.getIouLicense();
  }

  /** Writes the settings; the content is taken before the first await, as group commit needs. */
  private async save(): Promise<void> {
    if (!this.file) return;
    const content = JSON.stringify({ gns3vm: this.gns3vm, iou_license: this.iouLicense }, null, 2) + '\n';
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.file, content, { mode: 0o600 });
  }
}
