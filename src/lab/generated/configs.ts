// What `emuctl lab config` shows: the generated startup files of a lab's device nodes, and the
// file names they get when written out (DIR/NODE/frr.conf …). Pure: the command does the I/O.
import type { LabSpec } from '../model.js';
import { prefixText } from './ip.js';
import type { LabPlan } from './model.js';

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

/** The addressing plan as text, one line per loopback and interface, in file order. */
export function renderAddressing(plan: LabPlan): string {
  const lines: string[] = [];
  for (const node of plan.nodes) {
    const loopbacks = [node.loopback[4], node.loopback[6]].filter((p) => p !== undefined).map((p) => prefixText(p!));
    if (loopbacks.length) lines.push(`${node.name} lo ${loopbacks.join(' ')} router-id ${node.routerId}`);
    for (const i of node.interfaces) {
      const addresses = [i.address[4], i.address[6]].filter((p) => p !== undefined).map((p) => prefixText(p!));
      const where = `${i.link.switchName ? `lan ${i.link.switchName}` : i.link.kind}${i.link.vlan ? ` vlan ${i.link.vlan.name} (${i.link.vlan.id})` : ''}`;
      lines.push(`${node.name} ${i.name} ${addresses.join(' ')} ${where} with ${i.peers.map((p) => p.node).join(' ')}`);
    }
    const gateways = [node.gateway[4], node.gateway[6]].filter((p) => p !== undefined).map((p) => prefixText(p!).split('/')[0]);
    if (gateways.length) lines.push(`${node.name} gateway ${gateways.join(' ')}`);
  }
  return lines.join('\n') + '\n';
}
