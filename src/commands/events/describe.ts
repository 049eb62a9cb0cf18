import { linkName, type Link } from '../../client/links.js';
import type { Node } from '../../client/nodes.js';
import type { ReceivedNotification } from '../../client/notifications.js';

/** The key naming the object of each kind of event. */
const ID_KEYS: Record<string, string> = {
  node: 'node_id', link: 'link_id', compute: 'compute_id', project: 'project_id',
  template: 'template_id', drawing: 'drawing_id', snapshot: 'snapshot_id',
};

/** Fields that change on their own (usage figures) and say nothing on an event line. */
const QUIET_FIELDS = new Set(['cpu_usage_percent', 'memory_usage_percent', 'uptime_seconds']);
const MAX_CHANGES = 4;
const MAX_VALUE = 40;

/** An event for a human: the object's name and what changed. */
export interface EventDescription {
  name?: string;
  change: string;
}

/**
 * Names the objects of events and tells what changed, from the objects it has seen:
 * the server's lists at the start, then every event's JSON (an event carries the whole object).
 */
export class EventDescriber {
  private readonly objects = new Map<string, Record<string, any>>();

  /** Records the objects a stream starts from (nodes and links of a project, or computes and projects). */
  seed(kind: keyof typeof ID_KEYS, objects: readonly Record<string, any>[]): void {
    for (const o of objects) this.objects.set(`${kind}:${o[ID_KEYS[kind]]}`, o);
  }

  /** Describes an event and remembers the object's new state. */
  describe(n: ReceivedNotification): EventDescription {
    const [kind, verb] = n.action.split('.', 2);
    const e = n.event;
    if (n.action === 'ping') return { change: `cpu ${e.cpu_usage_percent ?? '?'}% memory ${e.memory_usage_percent ?? '?'}%` };
    if (kind === 'log') return { change: String(e.message ?? '') };
    const idKey = ID_KEYS[kind];
    if (!idKey || e[idKey] === undefined) return { name: typeof e.name === 'string' ? e.name : undefined, change: '' };
    const key = `${kind}:${e[idKey]}`;
    const before = this.objects.get(key);
    if (verb === 'deleted') this.objects.delete(key);
    else this.objects.set(key, e);
    return { name: this.nameOf(kind, e), change: verb === 'updated' && before ? changes(before, e) : this.summary(kind, verb, e) };
  }

  private nameOf(kind: string, e: Record<string, any>): string {
    if (kind === 'link' && Array.isArray(e.nodes)) return linkName(e as Link, this.nodes());
    if (typeof e.name === 'string') return e.name;
    return String(e[ID_KEYS[kind]]).slice(0, 8);
  }

  private summary(kind: string, verb: string, e: Record<string, any>): string {
    if (kind === 'node' && verb === 'created') return `${e.node_type ?? ''} on ${e.compute_id ?? '?'}`;
    if (kind === 'compute' && verb !== 'deleted') return `connected ${e.connected}`;
    if ((kind === 'node' || kind === 'project') && verb === 'updated' && e.status) return `status ${e.status}`;
    return '';
  }

  private nodes(): Node[] {
    return [...this.objects.entries()].filter(([k]) => k.startsWith('node:')).map(([, v]) => v as Node);
  }
}

/** `status started→stopped capturing false→true`: the top-level fields whose values differ, status first. */
export function changes(before: Record<string, any>, after: Record<string, any>): string {
  const changed = [...new Set([...Object.keys(before), ...Object.keys(after)])]
    .filter((k) => !QUIET_FIELDS.has(k) && canonical(before[k]) !== canonical(after[k]))
    .sort((a, b) => Number(b === 'status') - Number(a === 'status'));
  const shown = changed.slice(0, MAX_CHANGES).map((k) => `${k} ${short(before[k])}→${short(after[k])}`);
  if (changed.length > MAX_CHANGES) shown.push(`(+${changed.length - MAX_CHANGES} more)`);
  return shown.join(' ');
}

function short(value: unknown): string {
  const text = typeof value === 'string' ? value : value === undefined ? '-' : JSON.stringify(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

/** JSON with object keys sorted: GNS3 3.x sends a node's label and ports with their keys in another order than its lists. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : v));
}
