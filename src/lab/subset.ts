import { UsageError } from '../client/errors.js';
import type { LabSpec } from './model.js';

/** A lab cut down to some of its nodes: the spec to bring up and what was left out. */
export interface LabSubset {
  spec: LabSpec;
  droppedNodes: string[];
  droppedLinks: number;
}

/**
 * `lab up --nodes R1,R2,H1`: only these nodes and the links between them (tests stay: those that
 * need a node left out are skipped when run). A name the file does not have is a usage error.
 */
export function labSubset(spec: LabSpec, names: readonly string[]): LabSubset {
  const known = new Set(spec.nodes.map((n) => n.name));
  const unknown = names.filter((n) => !known.has(n));
  if (unknown.length) throw new UsageError(`--nodes: ${unknown.join(', ')} ${unknown.length === 1 ? 'is not a node' : 'are not nodes'} of ${spec.file}; nodes: ${[...known].join(', ')}`);
  const keep = new Set(names);
  const links = spec.links.filter((l) => l.ends.every((e) => keep.has(e.node)));
  return {
    spec: { ...spec, nodes: spec.nodes.filter((n) => keep.has(n.name)), links },
    droppedNodes: spec.nodes.filter((n) => !keep.has(n.name)).map((n) => n.name),
    droppedLinks: spec.links.length - links.length,
  };
}
