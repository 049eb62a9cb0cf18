import { readFile } from 'node:fs/promises';
import { UsageError } from '../../cli/errors.js';
import type { LabSpec } from '../../lab/model.js';

/** Reads and checks a lab file (a mistake in it is a usage error naming FILE:LINE:COL). */
export async function readLabFile(path: string): Promise<LabSpec> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new UsageError(`cannot read lab file ${path}: ${code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'it is a directory' : (err as Error).message}`);
  }
  const { parseLab } = await import('../../lab/parse.js');
  return parseLab(text, path);
}

/** True when `ref` names a lab file rather than a project: it ends in .yml/.yaml/.json or holds a `/`. */
export function isLabFile(ref: string): boolean {
  return /\.(ya?ml|json)$/i.test(ref) || ref.includes('/');
}

/** `FILE|NAME`: the lab file read (when a file is named) and the project name it gives. */
export async function labTarget(ref: string): Promise<{ name: string; spec?: LabSpec }> {
  if (!isLabFile(ref)) return { name: ref };
  const spec = await readLabFile(ref);
  return { name: spec.name, spec };
}
