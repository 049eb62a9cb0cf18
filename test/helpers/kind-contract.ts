// The node-kind contract (issue 27), as functions the contract tests run over every kind: each answers the
// breaches it finds (empty: the kind keeps that part of the contract), so a broken kind is shown to fail.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import type { KindDeps, NodeKind } from '../../src/daemon/kinds/kind.js';
import { NODE_LAYOUT_DEFAULTS } from '../../src/daemon/controller/node.js';
import { CONTROLLER_ONLY_PROPERTIES } from '../../src/daemon/controller/nodes.js';
import { validate, type JsonSchema } from '../../src/daemon/schemas/validation.js';

/** The fields GNS3 2.2's controller gives every node JSON, whatever its type. */
export const GNS3_NODE_FIELDS = [
  'compute_id', 'project_id', 'node_id', 'template_id', 'node_type', 'node_directory', 'command_line', 'name', 'console',
  'console_host', 'console_type', 'properties', 'status', 'label', 'symbol', 'width', 'height', 'x', 'y', 'z', 'locked',
  'port_name_format', 'port_segment_size', 'first_port_name', 'custom_adapters', 'ports',
];

/** What a node made from the kind's template sends its compute beside its name: the template's fields less the controller's own (as nodeFromTemplate and NodeManager split them). */
function templateProperties(kind: NodeKind, extra: Record<string, unknown>): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(kind.template.fields)) if (field.default !== undefined) values[key] = structuredClone(field.default);
  Object.assign(values, kind.template.builtin?.properties, extra);
  return Object.fromEntries(Object.entries(values).filter(([key, value]) =>
    !(key in NODE_LAYOUT_DEFAULTS) && !CONTROLLER_ONLY_PROPERTIES.includes(key) && !['console', 'console_type', 'width', 'height'].includes(key) && value !== null && value !== ''));
}

/**
 * Does the kind's template make a node its compute accepts? The create body a node of the template's
 * defaults (plus `extra`, what a user must give, such as docker's image) brings is validated against
 * the compute's create schema: the breach is the validation's message.
 */
export function templateBreaches(kind: NodeKind, deps: KindDeps, extra: Record<string, unknown> = {}): string[] {
  const compute = kind.compute(deps);
  try {
    validate(compute.createSchema as JsonSchema, { name: `${kind.type}-contract`, ...templateProperties(kind, extra) }, `${kind.type} create body from its template`);
    return [];
  } catch (err) {
    return [(err as Error).message];
  } finally {
    void compute.close?.();
  }
}

/**
 * Do the controller's ports (node JSON `ports`) and the compute's (`.../stats`) name the same adapter/port
 * pairs? Names are left out: as in GNS3, the controller names ports (port_name_format, custom adapters).
 */
export function portBreaches(controllerPorts: { adapter_number: number; port_number: number }[], computePorts: { adapter_number: number; port_number: number }[]): string[] {
  const key = (p: { adapter_number: number; port_number: number }) => `${p.adapter_number}/${p.port_number}`;
  const controller = new Set(controllerPorts.map(key));
  const compute = new Set(computePorts.map(key));
  return [
    ...[...controller].filter((p) => !compute.has(p)).map((p) => `the controller lists port ${p}, the compute does not`),
    ...[...compute].filter((p) => !controller.has(p)).map((p) => `the compute lists port ${p}, the controller does not`),
  ];
}

/**
 * Does the node JSON carry GNS3's fields? Every node's, and in `properties` each field of the type's
 * template that its compute's create schema also takes (what the template sets, the node keeps).
 */
export function fieldBreaches(kind: NodeKind, createSchema: JsonSchema, node: Record<string, unknown>): string[] {
  const missing = GNS3_NODE_FIELDS.filter((f) => !(f in node)).map((f) => `node JSON lacks ${f}`);
  const accepted = Object.keys((createSchema as { properties?: Record<string, unknown> }).properties ?? {});
  const properties = (node.properties ?? {}) as Record<string, unknown>;
  for (const field of Object.keys(kind.template.fields)) {
    if (accepted.includes(field) && !(field in properties) && !(field in node)) missing.push(`node JSON lacks ${kind.type}'s ${field}`);
  }
  if (node.node_type !== kind.type) missing.push(`node_type is ${String(node.node_type)}, not ${kind.type}`);
  return missing;
}

/** The processes whose command line names `marks` or whose working directory lies in one of them (the node's id, its directory). */
export function processesMarkedBy(marks: string[]): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((n) => /^\d+$/.test(n) && Number(n) !== process.pid)) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ');
      let cwd = '';
      try {
        cwd = readlinkSync(`/proc/${pid}/cwd`);
      } catch {
        // a process of another user or one that just ended: its command line is enough
      }
      if (marks.some((m) => cmdline.includes(m) || cwd.startsWith(m))) found.push(`${pid}: ${cmdline.trim()}`);
    } catch {
      // ended while we looked
    }
  }
  return found;
}

/** The host's interfaces whose name carries one of `marks` (docker's taps carry 8 hex digits of the node id, NAT's bridge the daemon's pid). */
export function interfacesMarkedBy(marks: string[]): string[] {
  return readdirSync('/sys/class/net').filter((n) => marks.some((m) => n.includes(m)));
}
