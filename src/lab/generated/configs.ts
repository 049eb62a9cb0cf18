// What `emuctl lab config` shows: the generated startup files of a lab's device nodes, and the
// file names they get when written out (DIR/NODE/frr.conf …). Pure: the command does the I/O.
import type { LabSpec } from '../model.js';

/** One generated file of one node. */
export interface GeneratedFile {
  node: string;
  /** Its path in the container. */
  path: string;
  /** Where `-o DIR` writes it, relative to DIR: NODE/BASENAME. */
  output: string;
  text: string;
}

/** The generated files of the lab's device nodes (or of one), in file order. Throws a message naming the device nodes when `node` is not one. */
export function generatedFiles(spec: LabSpec, node?: string): GeneratedFile[] {
  const devices = spec.nodes.filter((n) => n.device !== undefined);
  if (node !== undefined && !devices.some((n) => n.name === node)) {
    throw new Error(`${node} is not a device node of lab ${spec.name}; ${devices.length ? `its device nodes: ${devices.map((n) => n.name).join(', ')}` : 'it has none (device: frr or linux)'}`);
  }
  return devices
    .filter((n) => node === undefined || n.name === node)
    .flatMap((n) => (n.files ?? []).map((f) => ({ node: n.name, path: f.path, output: `${n.name}/${f.path.slice(f.path.lastIndexOf('/') + 1)}`, text: f.text ?? '' })));
}

/** All of them as one text: each file under a `### NODE PATH` line. */
export function renderGeneratedFiles(files: readonly GeneratedFile[]): string {
  return files.map((f) => `### ${f.node} ${f.path}\n${f.text}`).join('\n');
}
