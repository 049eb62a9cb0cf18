import { statfs } from 'node:fs/promises';
import { dirname } from 'node:path';
import { PayloadTooLargeError } from '../errors.js';

/** The import limits as configured; a byte limit left unset follows the free disk space. */
export interface ImportLimitSettings {
  maxImportBytes?: number;
  maxImportExpandedBytes?: number;
  maxImportEntries: number;
  maxImportRatio: number;
}

/** One limit in force: its value, the setting that gives it and, for a default, where the value comes from. */
export interface Limit {
  value: number;
  setting: string;
  unit: 'bytes' | 'entries' | 'to 1';
  origin?: string;
}

/** Without a setting an upload may take this much, or less when the temporary directory cannot spare it. */
export const DEFAULT_UPLOAD_CEILING = 4 * 1024 ** 3;
/**
 * Below this many bytes once extracted, an archive or an entry may have any ratio: a small
 * project (or a freshly made qcow2 of a few hundred KB, which deflates some 300 to 1) is never a
 * bomb. Above it, max_import_ratio applies (overall and per entry).
 */
export const RATIO_FREE_BYTES = 128 * 1024 ** 2;
/** What an import leaves free on a file system: this share of its size. */
const RESERVE = 0.05;

/** The 413 for `what` going over `limit`; the message names the setting, so that an administrator knows what to raise. */
export function overLimit(what: string, limit: Limit): PayloadTooLargeError {
  const origin = limit.origin ? `: ${limit.origin}` : '';
  return new PayloadTooLargeError(`${what} is over ${limit.setting} (${limit.value} ${limit.unit}${origin})`);
}

/** The limits of one import, with the disk-space defaults evaluated now (free space changes). */
export class ImportLimits {
  constructor(private readonly settings: ImportLimitSettings) {}

  /** How large an uploaded archive, spooled into `spoolDir`, may be. */
  async upload(spoolDir: string): Promise<Limit> {
    const setting = 'max_import_bytes';
    if (this.settings.maxImportBytes !== undefined) return { value: this.settings.maxImportBytes, setting, unit: 'bytes' };
    const spare = await spareBytes(spoolDir);
    return spare < DEFAULT_UPLOAD_CEILING
      ? { value: spare, setting, unit: 'bytes', origin: 'what the temporary directory can spare' }
      : { value: DEFAULT_UPLOAD_CEILING, setting, unit: 'bytes', origin: 'the default' };
  }

  /** How many bytes an archive's files, extracted into `dir`, may add up to. */
  async expanded(dir: string): Promise<Limit> {
    const setting = 'max_import_expanded_bytes';
    if (this.settings.maxImportExpandedBytes !== undefined) return { value: this.settings.maxImportExpandedBytes, setting, unit: 'bytes' };
    return { value: await spareBytes(dir), setting, unit: 'bytes', origin: 'what the projects file system can spare' };
  }

  /** How many times its compressed size an archive, and each of its entries, may expand to (beyond RATIO_FREE_BYTES). */
  get ratio(): Limit {
    return { value: this.settings.maxImportRatio, setting: 'max_import_ratio', unit: 'to 1' };
  }

  /** How many entries an archive may hold. */
  get entries(): Limit {
    return { value: this.settings.maxImportEntries, setting: 'max_import_entries', unit: 'entries' };
  }
}

/** The bytes that can be written on `dir`'s file system (its nearest existing ancestor's) while leaving RESERVE of it free. */
export async function spareBytes(dir: string): Promise<number> {
  for (let at = dir; ; at = dirname(at)) {
    try {
      const fs = await statfs(at);
      return Math.max(0, Math.floor((fs.bavail - fs.blocks * RESERVE) * fs.bsize));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || dirname(at) === at) throw err;
    }
  }
}
