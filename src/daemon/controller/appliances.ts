import { readdir } from 'node:fs/promises';
import { ApplianceFormatError, parseAppliance, type ApplianceFile } from '../../appliance/schema.js';
import type { Logger } from '../logger.js';
import { openForRead } from '../safe-fs.js';
import { listedSymbol } from '../../appliance/template.js';
import { DEFAULT_SYMBOLS, SYMBOL_THEME } from './symbols.js';

/** An appliance file larger than this is not read (the registry's largest is about 60 KB). */
const MAX_APPLIANCE_BYTES = 4 * 1024 * 1024;

/**
 * The appliances of the `appliances_dir` setting, listed for `GET /v2/appliances` in GNS3
 * 2.2's shape: each file's JSON as written, `builtin: false`, no `appliance_id`, broken ones
 * left out, and a symbol that is missing or one of GNS3's own (`:/symbols/...`) replaced by
 * the theme's default symbol for the category (guest: docker_guest or qemu_guest), as GNS3's
 * appliance manager does. Read anew on each call, as GNS3 does, so new files show at once.
 */
export class ApplianceCatalog {
  constructor(private readonly dir: string | undefined, private readonly log: Logger) {}

  async list(): Promise<Record<string, unknown>[]> {
    if (!this.dir) return [];
    let names: string[];
    try {
      names = (await readdir(this.dir, { withFileTypes: true })).filter((e) => e.isFile() && /\.gns3a(ppliance)?$/.test(e.name)).map((e) => e.name).sort();
    } catch (err) {
      this.log.warn(`appliances_dir ${this.dir}: ${(err as Error).message}`);
      return [];
    }
    const listed: Record<string, unknown>[] = [];
    for (const name of names) {
      const file = await this.read(name);
      if (!file || file.status === 'broken') continue;
      listed.push(catalogEntry(file));
    }
    return listed;
  }

  /** One file parsed, or undefined (logged) when it cannot be read or is not an appliance. */
  private async read(name: string): Promise<ApplianceFile | undefined> {
    try {
      const handle = await openForRead(this.dir!, name);
      try {
        const { size } = await handle.stat();
        if (size > MAX_APPLIANCE_BYTES) throw new ApplianceFormatError(`${size} bytes is over ${MAX_APPLIANCE_BYTES}`);
        return parseAppliance(await handle.readFile('utf8'));
      } finally {
        await handle.close();
      }
    } catch (err) {
      this.log.warn(`appliances_dir: cannot load ${name}: ${(err as Error).message}`);
      return undefined;
    }
  }
}

/** The GET /v2/appliances entry of one parsed file. */
export function catalogEntry(file: ApplianceFile): Record<string, unknown> {
  const { appliance_id: _ignored, ...data } = file.raw;
  const entry: Record<string, unknown> = { ...data, builtin: false };
  const symbol = listedSymbol(file, DEFAULT_SYMBOLS[SYMBOL_THEME]);
  if (symbol !== undefined) entry.symbol = symbol;
  return entry;
}
