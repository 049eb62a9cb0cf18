// The topologies `emuctl lab generate` knows: each a pure function from its options to the nodes
// and links a person would otherwise type. render.ts writes them as a lab file.

/** A bad generator option (a count out of range): one line for the user. */
export class GenerateOptionError extends Error {}

/** Routing the generated routers run. */
export type Routing = 'ospf' | 'bgp';

/** One node of a generated topology, in file order. */
export interface GenNode {
  name: string;
  device: 'frr' | 'linux';
  /** Its group, for a comment above the first of a run of nodes ("spines", "hosts"). */
  group: string;
}

/** A generated topology: nodes and links ([A, B] point-to-point; more ends make a LAN). */
export interface GenTopology {
  /** The lab's name. */
  name: string;
  /** What it is, in one line for the file's head. */
  summary: string;
  nodes: GenNode[];
  links: string[][];
  /** Routers that share one AS when the lab runs BGP (a clos's spines), each written as a group. */
  asGroups?: { name: string; members: string[] }[];
}

/** The largest count of routers a generator makes: past it the addressing pools of a generated file run out. */
export const MAX_ROUTERS = 2000;
/** Host LANs get a /24 each from 198.19.0.0/16. */
export const MAX_HOST_LANS = 256;

function count(name: string, value: number, min: number, max: number): number {
  if (!Number.isInteger(value) || value < min || value > max) throw new GenerateOptionError(`--${name} must be a whole number from ${min} to ${max}, not ${value}`);
  return value;
}

/** Hosts behind a router: one host is a point-to-point host link, more share a LAN with it. */
function addHosts(nodes: GenNode[], links: string[][], router: string, hosts: number, name: (k: number) => string): void {
  const names = Array.from({ length: hosts }, (_, k) => name(k + 1));
  for (const h of names) nodes.push({ name: h, device: 'linux', group: 'hosts' });
  if (names.length) links.push([router, ...names]);
}

function checkSize(routers: number, hostLans: number): void {
  if (routers > MAX_ROUTERS) throw new GenerateOptionError(`that makes ${routers} routers; a generated lab has at most ${MAX_ROUTERS}`);
  if (hostLans > MAX_HOST_LANS) throw new GenerateOptionError(`that makes ${hostLans} host LANs; a generated lab has at most ${MAX_HOST_LANS} (one /24 each in 198.19.0.0/16)`);
}

/** Options of `clos`. */
export interface ClosOptions { spines: number; leaves: number; hostsPerLeaf: number }

/** A leaf-spine (Clos) fabric: every leaf linked to every spine, hosts behind each leaf. */
export function clos(o: ClosOptions): GenTopology {
  const spines = count('spines', o.spines, 1, 64);
  const leaves = count('leaves', o.leaves, 1, 1000);
  const hosts = count('hosts-per-leaf', o.hostsPerLeaf, 0, 64);
  checkSize(spines + leaves, hosts ? leaves : 0);
  const nodes: GenNode[] = [];
  const links: string[][] = [];
  for (let s = 1; s <= spines; s++) nodes.push({ name: `S${s}`, device: 'frr', group: 'spines' });
  for (let l = 1; l <= leaves; l++) nodes.push({ name: `L${l}`, device: 'frr', group: 'leaves' });
  for (let l = 1; l <= leaves; l++) for (let s = 1; s <= spines; s++) links.push([`L${l}`, `S${s}`]);
  for (let l = 1; l <= leaves; l++) addHosts(nodes, links, `L${l}`, hosts, (k) => (hosts === 1 ? `H${l}` : `H${l}-${k}`));
  return {
    name: `clos-${spines}x${leaves}`,
    summary: `a leaf-spine fabric: ${spines} spine${spines > 1 ? 's' : ''}, ${leaves} lea${leaves > 1 ? 'ves' : 'f'}, each leaf linked to every spine, ${hosts} host${hosts === 1 ? '' : 's'} per leaf`,
    nodes,
    links,
    // RFC 7938's fabric: the spines share an AS (no path between leaves runs through two spines), each leaf has its own.
    asGroups: [{ name: 'spines', members: nodes.filter((n) => n.group === 'spines').map((n) => n.name) }],
  };
}

/** Options of `ring`, `star`. */
export interface RoutersOptions { routers: number; hostsPerRouter: number }

function routersWithHosts(n: number, hosts: number, links: string[][], nodes: GenNode[]): void {
  for (let r = 1; r <= n; r++) addHosts(nodes, links, `R${r}`, hosts, (k) => (hosts === 1 ? `H${r}` : `H${r}-${k}`));
}

/** A ring: R1 … RN, each linked to the next, RN back to R1. */
export function ring(o: RoutersOptions): GenTopology {
  const n = count('routers', o.routers, 3, MAX_ROUTERS);
  const hosts = count('hosts-per-router', o.hostsPerRouter, 0, 64);
  checkSize(n, hosts ? n : 0);
  const nodes: GenNode[] = Array.from({ length: n }, (_, i) => ({ name: `R${i + 1}`, device: 'frr' as const, group: 'routers' }));
  const links = nodes.map((node, i) => [node.name, nodes[(i + 1) % n]!.name]);
  routersWithHosts(n, hosts, links, nodes);
  return { name: `ring-${n}`, summary: `a ring of ${n} routers, each linked to the next and R${n} back to R1, ${hosts} host${hosts === 1 ? '' : 's'} per router`, nodes, links };
}

/** A star: R1 in the middle, linked to each of R2 … RN. */
export function star(o: RoutersOptions): GenTopology {
  const n = count('routers', o.routers, 2, 65);
  const hosts = count('hosts-per-router', o.hostsPerRouter, 0, 64);
  checkSize(n, hosts ? n : 0);
  const nodes: GenNode[] = Array.from({ length: n }, (_, i) => ({ name: `R${i + 1}`, device: 'frr' as const, group: i === 0 ? 'hub' : 'spokes' }));
  const links = nodes.slice(1).map((node) => ['R1', node.name]);
  routersWithHosts(n, hosts, links, nodes);
  return { name: `star-${n}`, summary: `a star of ${n} routers: R1 in the middle, linked to each of the ${n - 1} others, ${hosts} host${hosts === 1 ? '' : 's'} per router`, nodes, links };
}

/** Options of `tree`. */
export interface TreeOptions { depth: number; fanout: number; hostsPerLeaf: number }

/** A tree: R1 at the root, each router above the last level linked to `fanout` children; hosts behind the last level. Numbered breadth first. */
export function tree(o: TreeOptions): GenTopology {
  const depth = count('depth', o.depth, 1, 12);
  const fanout = count('fanout', o.fanout, 1, 64);
  const hosts = count('hosts-per-leaf', o.hostsPerLeaf, 0, 64);
  let total = 0;
  let level = 1;
  for (let d = 0; d <= depth; d++, level *= fanout) {
    total += level;
    if (total > MAX_ROUTERS) break;
  }
  const lastLevel = fanout ** depth;
  checkSize(total, hosts ? lastLevel : 0);
  const nodes: GenNode[] = [];
  const links: string[][] = [];
  const levelOf: number[] = [];
  nodes.push({ name: 'R1', device: 'frr', group: 'root' });
  levelOf.push(0);
  for (let i = 0; i < nodes.length && levelOf[i]! < depth; i++) {
    for (let c = 0; c < fanout; c++) {
      const name = `R${nodes.length + 1}`;
      nodes.push({ name, device: 'frr', group: `level ${levelOf[i]! + 1}` });
      levelOf.push(levelOf[i]! + 1);
      links.push([nodes[i]!.name, name]);
    }
  }
  const leaves = nodes.filter((_, i) => levelOf[i] === depth).map((n) => n.name);
  for (const leaf of leaves) addHosts(nodes, links, leaf, hosts, (k) => (hosts === 1 ? `H${leaf.slice(1)}` : `H${leaf.slice(1)}-${k}`));
  return { name: `tree-${depth}x${fanout}`, summary: `a tree of depth ${depth} and fanout ${fanout}: ${total} routers, R1 at the root, ${hosts} host${hosts === 1 ? '' : 's'} behind each of the ${lastLevel} routers of the last level`, nodes, links };
}
