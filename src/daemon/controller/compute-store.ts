import { chmod, mkdir, readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { writeFileAtomic } from '../atomic-write.js';
import type { ComputeCreate } from './compute-record.js';

/** The saved remote computes: a JSON file readable by its owner only (it holds passwords). */
export class ComputeStore {
  constructor(private readonly file: string) {}

  async read(): Promise<(ComputeCreate & { compute_id: string })[]> {
    try {
      return JSON.parse(await readFile(this.file, 'utf8')) as (ComputeCreate & { compute_id: string })[];
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new Error(`cannot read saved computes ${this.file}: ${(err as Error).message}`);
    }
  }

  async write(computes: (ComputeCreate & { compute_id: string })[]): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true, mode: 0o700 });
    await writeFileAtomic(this.file, JSON.stringify(computes, null, 2) + '\n', { mode: 0o600 });
    await chmod(this.file, 0o600);
  }
}
