import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Inventory } from './hosts.js';
import { nornirInventory, renderInventory, type InventoryFormat } from './formats.js';

/** The inventory as one text for stdout (Nornir's two files as two YAML documents, each named in a comment). */
export function inventoryText(inventory: Inventory, format: InventoryFormat): string {
  if (format !== 'nornir') return renderInventory(inventory, format);
  return Object.entries(nornirInventory(inventory)).map(([file, text]) => `--- # ${file}\n${text}`).join('');
}

/**
 * Writes the inventory to `output` (a file; for nornir a directory, made when missing, holding
 * hosts.yaml and groups.yaml) and returns the paths written.
 * The files are owner-only: they name the lab's private key.
 */
export async function writeInventory(inventory: Inventory, format: InventoryFormat, output: string): Promise<string[]> {
  if (format !== 'nornir') {
    await writeFile(output, renderInventory(inventory, format), { mode: 0o600 });
    return [output];
  }
  await mkdir(output, { recursive: true, mode: 0o700 });
  const written: string[] = [];
  for (const [file, text] of Object.entries(nornirInventory(inventory))) {
    await writeFile(join(output, file), text, { mode: 0o600 });
    written.push(join(output, file));
  }
  return written;
}
