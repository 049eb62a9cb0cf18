import { parseLab } from '../parse.js';
import { renderLab, type RenderOptions } from './render.js';
import { clos, ring, star, tree, GenerateOptionError, type ClosOptions, type GenTopology, type RoutersOptions, type TreeOptions } from './topologies.js';

/** A generator and its options. */
export type GenerateRequest = RenderOptions & (
  | { kind: 'clos'; options: ClosOptions }
  | { kind: 'ring' | 'star'; options: RoutersOptions }
  | { kind: 'tree'; options: TreeOptions });

const FLAGS: Record<string, string> = { spines: 'spines', leaves: 'leaves', hostsPerLeaf: 'hosts-per-leaf', routers: 'routers', hostsPerRouter: 'hosts-per-router', depth: 'depth', fanout: 'fanout' };

/** The command line that makes this request (every option spelled out, in a fixed order), for the file's head. */
export function commandLine(req: GenerateRequest): string {
  const quote = (s: string) => (/^[\w./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);
  const parts = ['emuctl lab generate', req.kind, ...Object.entries(req.options).map(([k, v]) => `--${FLAGS[k]} ${v}`), `--routing ${req.routing}`];
  if (req.image !== undefined) parts.push(`--image ${quote(req.image)}`);
  if (req.hostImage !== undefined) parts.push(`--host-image ${quote(req.hostImage)}`);
  return parts.join(' ');
}

/** The topology of a request. */
export function topologyOf(req: GenerateRequest): GenTopology {
  switch (req.kind) {
    case 'clos': return clos(req.options);
    case 'ring': return ring(req.options);
    case 'star': return star(req.options);
    case 'tree': return tree(req.options);
  }
}

/**
 * The lab file of a request, checked as `lab up` reads it (schema, devices, interfaces, addressing)
 * before anyone writes it: a file the generator makes and emuctl refuses is a GenerateOptionError
 * naming the reason (too many links on one router, say).
 */
export function generateLab(req: GenerateRequest, file: string, env: Readonly<Record<string, string | undefined>> = process.env): string {
  const text = renderLab(topologyOf(req), { ...req, command: commandLine(req) });
  try {
    parseLab(text, file, env);
  } catch (err) {
    throw new GenerateOptionError(`emuctl would refuse the generated file: ${(err as Error).message}`);
  }
  return text;
}
