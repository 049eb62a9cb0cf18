import type { FileHandle } from 'node:fs/promises';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { NotFoundError } from '../errors.js';
import { openForRead } from '../safe-fs.js';
import { SYMBOL_ALIASES, SYMBOL_DRAWINGS } from './symbol-drawings.js';

/** One built-in symbol: its GNS3-style id, its file name, its theme, its size and its SVG (emuctl's own drawings). */
export interface SymbolEntry {
  symbol_id: string;
  filename: string;
  theme: string;
  builtin: true;
  width: number;
  height: number;
  svg: string;
}

/** A symbol as GET /v2/symbols lists it. */
export interface SymbolListing {
  symbol_id: string;
  filename: string;
  theme: string;
  builtin: boolean;
}

/** The one theme emuctl draws. */
export const SYMBOL_THEME = 'Classic';
const THEME = SYMBOL_THEME;
/** GNS3's theme name for the files of the user's symbols directory. */
const CUSTOM_THEME = 'Custom symbols';

/** The built-in symbols, with ids as GNS3 names them (`:/symbols/classic/<file>`). */
export const BUILTIN_SYMBOLS: SymbolEntry[] = SYMBOL_DRAWINGS.map((s) => ({ symbol_id: `:/symbols/classic/${s.filename}`, theme: THEME, builtin: true, ...s }));

/** The symbol every node falls back to, as in GNS3. */
export const DEFAULT_SYMBOL = ':/symbols/computer.svg';

/** GNS3's default symbols per role (`/v2/default_symbols`, GNS3 2.2's classic theme), for the one theme emuctl draws. */
export const DEFAULT_SYMBOLS: Record<string, Record<string, string>> = {
  [THEME]: {
    cloud: ':/symbols/classic/cloud.svg',
    ethernet_switch: ':/symbols/classic/ethernet_switch.svg',
    ethernet_hub: ':/symbols/classic/hub.svg',
    frame_relay_switch: ':/symbols/classic/frame_relay_switch.svg',
    atm_switch: ':/symbols/classic/atm_switch.svg',
    router: ':/symbols/classic/router.svg',
    multilayer_switch: ':/symbols/classic/multilayer_switch.svg',
    firewall: ':/symbols/classic/firewall.svg',
    computer: ':/symbols/classic/computer.svg',
    vpcs_guest: ':/symbols/classic/vpcs_guest.svg',
    qemu_guest: ':/symbols/classic/qemu_guest.svg',
    vbox_guest: ':/symbols/classic/vbox_guest.svg',
    vmware_guest: ':/symbols/classic/vmware_guest.svg',
    docker_guest: ':/symbols/classic/docker_guest.svg',
  },
};

/** The built-in symbol with that id; GNS3's short ids (`:/symbols/hub.svg`), bare file names and aliases find the classic one. */
export function findSymbol(id: string): SymbolEntry | undefined {
  const file = id.split('/').pop() ?? id;
  const named = SYMBOL_ALIASES[file] ?? file;
  return BUILTIN_SYMBOLS.find((s) => s.symbol_id === id) ?? BUILTIN_SYMBOLS.find((s) => s.filename === named);
}

/** Width and height a node gets from its symbol (an unknown symbol measures as the computer, as in GNS3). */
export function symbolSize(id: string | null | undefined): { width: number; height: number } {
  const symbol = findSymbol(id ?? DEFAULT_SYMBOL) ?? findSymbol(DEFAULT_SYMBOL)!;
  return { width: symbol.width, height: symbol.height };
}

/** A symbol's bytes: a built-in drawing, or an open file of the user's directory (the caller closes it). */
export type SymbolContent = { type: string; svg: string; file?: undefined } | { type: string; file: FileHandle; svg?: undefined };

const TYPES: Record<string, string> = { svg: 'image/svg+xml', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif' };
/** Files of the symbols directory listed at most (a mistaken directory must not stall the GUI). */
const MAX_CUSTOM = 5000;

/**
 * Symbols the controller serves: emuctl's drawings, plus the files of the `symbols_dir`
 * setting (theme "Custom symbols", id = the path below the directory, as GNS3 names them).
 * An id that is neither answers with the classic symbol of its file name, then the computer,
 * as GNS3 does; an id with `..`, NUL or a backslash is 404.
 */
export class SymbolLibrary {
  constructor(private readonly dir?: string) {}

  /** GET /v2/symbols: the built-in ones, then the user's. */
  async list(): Promise<SymbolListing[]> {
    const builtin = BUILTIN_SYMBOLS.map(({ symbol_id, filename, theme, builtin }) => ({ symbol_id, filename, theme, builtin }));
    const custom = (await this.customFiles()).map((rel) => ({ symbol_id: rel, filename: rel.split('/').pop()!, theme: CUSTOM_THEME, builtin: false }));
    return [...builtin, ...custom];
  }

  /** The symbol's content (see the class comment for unknown ids). */
  async content(id: string): Promise<SymbolContent> {
    checkId(id);
    const exact = BUILTIN_SYMBOLS.find((s) => s.symbol_id === id);
    if (exact) return { type: TYPES.svg, svg: exact.svg };
    const file = await this.openCustom(id);
    if (file) return { type: TYPES[extension(id)] ?? 'application/octet-stream', file };
    const fallback = findSymbol(id) ?? findSymbol(DEFAULT_SYMBOL)!;
    return { type: TYPES.svg, svg: fallback.svg };
  }

  /** Width and height of the symbol (a user's file: from its SVG attributes or PNG header, else the computer's size). */
  async dimensions(id: string): Promise<{ width: number; height: number }> {
    const content = await this.content(id);
    if (content.svg !== undefined) return svgSize(content.svg) ?? symbolSize(DEFAULT_SYMBOL);
    try {
      const head = Buffer.alloc(64 * 1024);
      const { bytesRead } = await content.file.read(head, 0, head.length, 0);
      return imageSize(head.subarray(0, bytesRead)) ?? symbolSize(DEFAULT_SYMBOL);
    } finally {
      await content.file.close();
    }
  }

  /** A user's symbol file, opened without following links; undefined when there is none. */
  private async openCustom(id: string): Promise<FileHandle | undefined> {
    if (!this.dir || id.startsWith(':/')) return undefined;
    try {
      return await openForRead(this.dir, id);
    } catch {
      return undefined;
    }
  }

  private async customFiles(): Promise<string[]> {
    if (!this.dir) return [];
    const found: string[] = [];
    const walk = async (rel: string, depth: number): Promise<void> => {
      let entries;
      try {
        entries = await readdir(join(this.dir!, rel), { withFileTypes: true });
      } catch {
        return;
      }
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        if (found.length >= MAX_CUSTOM || entry.name.startsWith('.')) continue;
        const path = rel ? `${rel}/${entry.name}` : entry.name;
        if (entry.isFile()) found.push(path);
        else if (entry.isDirectory() && depth < 8) await walk(path, depth + 1);
      }
    };
    await walk('', 0);
    return found;
  }
}

/** Refuses ids that could leave a directory or hide a character: 404, as for a symbol that cannot exist. */
function checkId(id: string): void {
  if (id.includes('\0') || id.includes('\\') || id.split('/').includes('..')) throw new NotFoundError(`Symbol ${JSON.stringify(id)} doesn't exist`);
}

function extension(id: string): string {
  return (id.split('.').pop() ?? '').toLowerCase();
}

/** An SVG's width and height attributes (in px or unitless), else its viewBox. */
function svgSize(svg: string): { width: number; height: number } | undefined {
  const tag = /<svg\b[^>]*>/i.exec(svg)?.[0];
  if (!tag) return undefined;
  const attr = (name: string) => new RegExp(`\\s${name}="([0-9.]+)(px)?"`).exec(tag)?.[1];
  const width = attr('width');
  const height = attr('height');
  if (width && height) return { width: Math.round(Number(width)), height: Math.round(Number(height)) };
  const box = /viewBox="[-0-9.]+[ ,]+[-0-9.]+[ ,]+([0-9.]+)[ ,]+([0-9.]+)"/.exec(tag);
  return box ? { width: Math.round(Number(box[1])), height: Math.round(Number(box[2])) } : undefined;
}

/** Width and height from a PNG header, or from SVG text. */
function imageSize(head: Buffer): { width: number; height: number } | undefined {
  if (head.length >= 24 && head.readUInt32BE(0) === 0x89504e47) return { width: head.readUInt32BE(16), height: head.readUInt32BE(20) };
  return svgSize(head.toString('utf8'));
}
