import { ConflictError } from '../errors.js';
import { Ownership, type Owner } from './ownership.js';

/** Gives each VPCS of a project its own last MAC byte; projects are separate labs, so bytes repeat across them. */
export class MacByteAllocator {
  private readonly owners = new Ownership<string>();

  /** `macOf` writes the whole address of a byte, for messages. */
  constructor(private readonly macOf: (byte: number) => string) {}

  /** The byte wanted (ConflictError if another VPCS of the project has it), or the lowest free one. */
  allocate(owner: Owner, wanted?: number): number {
    const key = (b: number) => `${owner.projectId}/${b}`;
    if (wanted !== undefined) {
      const holder = this.owners.holder(key(wanted));
      if (holder && holder.id !== owner.id) throw new ConflictError(`MAC address ${this.macOf(wanted)} is already used by another VPCS of this project`);
      this.owners.take(key(wanted), owner);
      return wanted;
    }
    for (let b = 0; b < 256; b++) {
      if (!this.owners.holder(key(b))) {
        this.owners.take(key(b), owner);
        return b;
      }
    }
    throw new ConflictError('No VPCS MAC address left in this project (256 in use)');
  }

  releaseOwner(owner: Owner): void {
    this.owners.releaseOwner(owner);
  }

  releaseProject(projectId: string): void {
    this.owners.releaseProject(projectId);
  }

  /** Bytes held, as `project/byte` keys. */
  used(): string[] {
    return this.owners.held();
  }
}
