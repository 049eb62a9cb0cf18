import { AmbiguousError, NoMatchError, OperationError, UsageError } from './errors.js';
import { apiPath, type ApiClient } from './api.js';
import { listNodes, NODE_KIND, type Node, type NodePort } from './nodes.js';
import { resolveOne, type NamedKind } from './resolve.js';
import { notEmuctlError, serverKind } from './server-kind.js';
import type { ReportedLinkFilters } from '../util/link-filters.js';

/** A link's filters as a server reports them (GNS3 names, plus emuctl's rate and duplicate); a missing filter is off. */
export type { ReportedLinkFilters as LinkFilters } from '../util/link-filters.js';

/** One end of a link as GNS3 v2 lists it. */
export interface LinkEnd {
  node_id: string;
  adapter_number: number;
  port_number: number;
  label?: unknown;
}

/** A GNS3 v2 link as the controller returns it. */
export interface Link {
  link_id: string;
  project_id: string;
  link_type: 'ethernet' | 'serial' | string;
  nodes: LinkEnd[];
  capturing: boolean;
  capture_file_name: string | null;
  capture_file_path: string | null;
  capture_compute_id: string | null;
  filters: ReportedLinkFilters;
  link_style?: Record<string, unknown>;
  suspend: boolean;
  [field: string]: unknown;
}

/** Body of POST /v2/projects/{project_id}/links. */
export interface LinkCreate {
  nodes: LinkEnd[];
  filters?: ReportedLinkFilters;
  suspend?: boolean;
  link_style?: Record<string, unknown>;
}

/** Fields accepted by PUT /v2/projects/{project_id}/links/{link_id} (filters replace the link's whole set). */
export type LinkUpdate = Partial<LinkCreate>;

/** GET /v2/projects/{project_id}/links. */
export function listLinks(api: ApiClient, projectId: string): Promise<Link[]> {
  return api.get<Link[]>(apiPath('projects', projectId, 'links'));
}

/** POST /v2/projects/{project_id}/links. */
export function createLink(api: ApiClient, projectId: string, body: LinkCreate): Promise<Link> {
  return api.post<Link>(apiPath('projects', projectId, 'links'), body);
}

/** GET /v2/projects/{project_id}/links/{link_id}. */
export function getLink(api: ApiClient, projectId: string, linkId: string): Promise<Link> {
  return api.get<Link>(apiPath('projects', projectId, 'links', linkId));
}

/** PUT /v2/projects/{project_id}/links/{link_id}. */
export function updateLink(api: ApiClient, projectId: string, linkId: string, fields: LinkUpdate): Promise<Link> {
  return api.put<Link>(apiPath('projects', projectId, 'links', linkId), fields);
}

/** DELETE /v2/projects/{project_id}/links/{link_id}. */
export function deleteLink(api: ApiClient, projectId: string, linkId: string): Promise<void> {
  return api.delete(apiPath('projects', projectId, 'links', linkId));
}

/** One parameter of an available filter: a number in a range, or text. */
export interface FilterParameter {
  name: string;
  type: 'int' | 'text';
  minimum?: number;
  maximum?: number;
  unit?: string;
}

/** One entry of a link's available_filters, as GNS3 describes it. */
export interface FilterDescription {
  type: string;
  name: string;
  description: string;
  parameters: FilterParameter[];
}

/** GET /v2/projects/{project_id}/links/{link_id}/available_filters. */
export function availableFilters(api: ApiClient, projectId: string, linkId: string): Promise<FilterDescription[]> {
  return api.get<FilterDescription[]>(apiPath('projects', projectId, 'links', linkId, 'available_filters'));
}

/** Filters of emuctl's own, which GNS3 does not have. */
export const EMUCTL_FILTER_TYPES: readonly string[] = ['rate', 'duplicate'];

/**
 * Checks that the server offers every filter type in `wanted` on the link, before any is
 * set: GNS3 stores a filter it cannot apply, and then every later change of the link's
 * filters fails. emuctl's own filters on a server that is not an emuctl daemon are an
 * OperationError saying so (exit 1); any other filter not offered is a UsageError (exit 2).
 * Both name the filters the server offers.
 */
export async function checkFiltersOffered(api: ApiClient, projectId: string, linkId: string, wanted: readonly string[]): Promise<void> {
  if (!wanted.length) return;
  const offered = (await availableFilters(api, projectId, linkId)).map((f) => f.type);
  const missing = wanted.filter((type) => !offered.includes(type));
  if (!missing.length) return;
  const offers = offered.length ? `it offers ${offered.join(', ')}` : 'it offers no filters on this link';
  if (missing.every((type) => EMUCTL_FILTER_TYPES.includes(type))) {
    const kind = await serverKind(api);
    if (!kind.emuctl) throw new OperationError(`${notEmuctlError(api, `the ${missing.join(' and ')} filter${missing.length > 1 ? 's need' : ' needs'}`, kind).message}; ${offers}`);
  }
  throw new UsageError(`the server does not offer the ${missing.join(', ')} filter${missing.length > 1 ? 's' : ''} on this link; ${offers}; nothing was changed`);
}

// ---- naming link ends and links ----------------------------------------------------------

/** A port as written on the command line: `ADAPTER/PORT`, `PORT` (adapter 0) or a port name (`Ethernet3`, `e3`). */
export type PortSpec = { adapter: number; port: number } | { name: string };

/** `NODE:PORTSPEC` split at its last colon (node names may hold colons, port specs never do). */
export interface EndSpec {
  node: string;
  port: PortSpec;
}

/** A link end resolved against the project's nodes. */
export interface ResolvedEnd {
  node: Node;
  adapter_number: number;
  port_number: number;
}

const END_SYNTAX = 'NODE:ADAPTER/PORT, NODE:PORT or NODE:PORT-NAME (e.g. PC1:0/0, SW1:3, SW1:Ethernet3)';

/** Parses `NODE:ADAPTER/PORT`, `NODE:PORT` or `NODE:PORT-NAME`; undefined when `text` has no such shape. */
export function parseEndSpec(text: string): EndSpec | undefined {
  const colon = text.lastIndexOf(':');
  if (colon <= 0 || colon === text.length - 1) return undefined;
  const node = text.slice(0, colon);
  const port = text.slice(colon + 1);
  if (node.trim() !== node || port.trim() !== port) return undefined;
  const numbers = /^(\d+)\/(\d+)$/.exec(port);
  if (numbers) return { node, port: { adapter: Number(numbers[1]), port: Number(numbers[2]) } };
  if (/^\d+$/.test(port)) return { node, port: { adapter: 0, port: Number(port) } };
  return { node, port: { name: port } };
}

/** Like parseEndSpec, but a malformed end is a usage error (for `link create`). */
export function parseEndArgument(text: string): EndSpec {
  const spec = parseEndSpec(text);
  if (!spec) throw new UsageError(`"${text}" is not a link end: expected ${END_SYNTAX}`);
  return spec;
}

function portList(node: Node): string {
  const ports = node.ports ?? [];
  if (!ports.length) return `${node.name} has no ports`;
  return `its ports: ${ports.map((p) => `${p.name} (${p.adapter_number}/${p.port_number})`).join(', ')}`;
}

/** The node port a port name denotes: exact name or short name, then a unique case-insensitive match. */
function portByName(node: Node, name: string): NodePort {
  const ports = node.ports ?? [];
  const exact = ports.filter((p) => p.name === name || p.short_name === name);
  const found = exact.length ? exact : ports.filter((p) => p.name.toLowerCase() === name.toLowerCase() || p.short_name?.toLowerCase() === name.toLowerCase());
  if (found.length === 1) return found[0];
  if (found.length > 1) throw new AmbiguousError(`port name "${name}" is ambiguous on node ${node.name}; use ADAPTER/PORT`);
  throw new NoMatchError(`node ${node.name} has no port named "${name}"; ${portList(node)}`);
}

/**
 * Resolves an end against the project's nodes. Numbered ports are taken as given (the server
 * says when one does not exist); a port name must be one of the node's ports.
 */
export function resolveEnd(nodes: readonly Node[], spec: EndSpec): ResolvedEnd {
  const node = resolveOne(nodes, spec.node, NODE_KIND);
  if ('name' in spec.port) {
    const port = portByName(node, spec.port.name);
    return { node, adapter_number: port.adapter_number, port_number: port.port_number };
  }
  return { node, adapter_number: spec.port.adapter, port_number: spec.port.port };
}

/** `PC1:0/0`: a link end named by its node's name (or the node UUID's start if the node is unknown). */
export function linkEndLabel(end: LinkEnd, nodes: readonly Node[]): string {
  const node = nodes.find((n) => n.node_id === end.node_id);
  return `${node ? node.name : end.node_id.slice(0, 8)}:${end.adapter_number}/${end.port_number}`;
}

/** `PC1:0/0-SW1:0/0`: the name a link can be given on the command line. */
export function linkName(link: Link, nodes: readonly Node[]): string {
  return link.nodes.map((end) => linkEndLabel(end, nodes)).join('-');
}

function linkKind(nodes: readonly Node[]): NamedKind<Link> {
  return { kind: 'link', id: (link) => link.link_id, name: (link) => linkName(link, nodes) };
}

const sameEnd = (end: LinkEnd, r: ResolvedEnd) =>
  end.node_id === r.node.node_id && end.adapter_number === r.adapter_number && end.port_number === r.port_number;

/** The ways to cut `ref` into two ends: at `<->`, else at each `-` that leaves a NODE:PORT on both sides. */
function twoEndReadings(ref: string): [EndSpec, EndSpec][] {
  const arrow = /^(.+?)\s*<->\s*(.+)$/.exec(ref);
  const cuts: [string, string][] = arrow ? [[arrow[1], arrow[2]]] : [];
  for (let i = ref.indexOf('-'); !arrow && i >= 0; i = ref.indexOf('-', i + 1)) cuts.push([ref.slice(0, i), ref.slice(i + 1)]);
  return cuts.flatMap(([a, b]) => {
    const specA = parseEndSpec(a);
    const specB = parseEndSpec(b);
    return specA && specB ? [[specA, specB] as [EndSpec, EndSpec]] : [];
  });
}

/** Why one reading of a reference named no link: how far it got, and the error to report. */
interface Miss {
  /** 0-2 ends resolved before a failure; 3 when every end resolved but no link joins them. */
  depth: number;
  error: Error;
}

/** The links joining exactly the resolved ends (one end: the link on that port). */
function linksAt(links: readonly Link[], ends: readonly ResolvedEnd[]): Link[] {
  if (ends.length === 1) return links.filter((link) => link.nodes.some((e) => sameEnd(e, ends[0])));
  const [a, b] = ends;
  return links.filter(({ nodes: [x, y] }) =>
    x !== undefined && y !== undefined && ((sameEnd(x, a) && sameEnd(y, b)) || (sameEnd(x, b) && sameEnd(y, a))));
}

/**
 * The link named by `ref`, among `links` of a project whose nodes are `nodes`:
 * - a full link UUID or a unique UUID prefix;
 * - its two ends `NODE:PORT-NODE:PORT` in either order (also `NODE:PORT <-> NODE:PORT`), where PORT is
 *   `ADAPTER/PORT`, `PORT` (adapter 0) or a port name, and NODE a node name, UUID or unique UUID prefix;
 * - one of its ends `NODE:PORT` (a port carries at most one link).
 * Node names may hold `-` and `:`: every reading of `ref` is tried, and readings naming
 * different links make it ambiguous.
 */
export function findLink(links: readonly Link[], nodes: readonly Node[], ref: string): Link {
  const wanted = ref.trim();
  if (!wanted.includes(':')) return resolveOne(links, wanted, linkKind(nodes));

  const found = new Map<string, Link>();
  const misses: Miss[] = [];
  const tryReading = (specs: EndSpec[]) => {
    const ends: ResolvedEnd[] = [];
    try {
      for (const spec of specs) ends.push(resolveEnd(nodes, spec));
    } catch (err) {
      misses.push({ depth: ends.length, error: err as Error });
      return;
    }
    const matched = linksAt(links, ends);
    for (const link of matched) found.set(link.link_id, link);
    if (!matched.length) {
      const label = (end: ResolvedEnd) => `${end.node.name}:${end.adapter_number}/${end.port_number}`;
      const what = ends.length === 2 ? `no link connects ${label(ends[0])} and ${label(ends[1])}` : `no link on ${label(ends[0])}`;
      const known = links.length ? `; links: ${links.map((link) => linkName(link, nodes)).join(', ')}` : '; the project has no links';
      misses.push({ depth: 3, error: new NoMatchError(what + known) });
    }
  };
  for (const reading of twoEndReadings(wanted)) tryReading(reading);
  const single = parseEndSpec(wanted);
  if (single) tryReading([single]);

  const matches = [...found.values()];
  if (matches.length === 1) return matches[0];
  if (matches.length > 1) {
    const listed = matches.map((link) => `${linkName(link, nodes)} (${link.link_id})`).join(', ');
    throw new AmbiguousError(`link "${wanted}" is ambiguous: ${listed}; use the link UUID`);
  }
  if (!misses.length) throw new NoMatchError(`no link matches "${wanted}": expected a link UUID or NODE:PORT-NODE:PORT`);
  // Report the reading that got furthest (the first of those): usually the only one.
  throw misses.reduce((best, miss) => (miss.depth > best.depth ? miss : best)).error;
}

/** The link named by `ref` (UUID, unique UUID prefix, or its ends `NODE:PORT-NODE:PORT`) in the project. */
export async function resolveLink(api: ApiClient, projectId: string, ref: string): Promise<Link> {
  const [links, nodes] = await Promise.all([listLinks(api, projectId), listNodes(api, projectId)]);
  return findLink(links, nodes, ref);
}
