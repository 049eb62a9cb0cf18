// Node groups, as netlab has them: `groups: {NAME: {members: [R1, R2], bgp: {as: N}, ospf: {…}}}`
// (or `NAME: [R1, R2]`, members only). A group's settings apply to its members; a node's own
// setting wins over its group's, a group's over the lab's (read.ts applies that order). Two groups
// that give one node different values of a setting (two ASes, say) are a mistake, not an order.
import { LabFileError, type Locator, type YamlPath } from '../locate.js';
import { DEVICES } from './devices.js';
import { addressText } from './ip.js';

/** The settings a group may give its members (a subset of a device node's bgp: and ospf:). */
export interface GroupSettings {
  bgp: { as?: number; rr?: boolean };
  ospf: { area?: string | number; cost?: number };
}

/** Settings a group may carry, as [module, key]. */
const SETTINGS = [['bgp', 'as'], ['bgp', 'rr'], ['ospf', 'area'], ['ospf', 'cost']] as const;

type Raw = Record<string, any>;

/** A setting's value for comparison (area 0 and '0.0.0.0' are one area). */
function canonical(module: string, key: string, value: unknown): string {
  return module === 'ospf' && key === 'area' && typeof value === 'number' ? addressText(4, BigInt(value)) : String(value);
}

const describe = (module: string, key: string, value: unknown) => (module === 'bgp' && key === 'as' ? `AS ${value}` : `${module} ${key} ${String(value)}`);

/**
 * Reads `groups:`: each member's settings from its groups, checked (a known device node, a router
 * when the group sets routing, in no two groups that disagree). Every mistake is a LabFileError.
 */
export function readGroups(raw: Raw, where: Locator): Map<string, GroupSettings> {
  const out = new Map<string, GroupSettings>();
  const groups: Raw = raw.groups ?? {};
  const nodes: Raw = raw.nodes ?? {};
  /** Which group set each member's setting, to name it in a conflict. */
  const source = new Map<string, string>();
  for (const name of where.keys(['groups'])) {
    if (nodes[name] !== undefined) throw where.keyError(['groups'], name, `group ${name} has the name of a node; give the group another name`);
    const value = groups[name];
    const members: string[] = Array.isArray(value) ? value : value.members;
    const path: YamlPath = Array.isArray(value) ? ['groups', name] : ['groups', name, 'members'];
    const sets = Array.isArray(value) ? [] : SETTINGS.filter(([m, k]) => value[m]?.[k] !== undefined);
    members.forEach((member, i) => {
      const pos = where.at([...path, i]);
      if (groups[member] !== undefined) throw new LabFileError(where.file, pos, `${member} is a group: a group lists nodes, not groups`);
      const node = nodes[member];
      if (node === undefined) {
        const known = Object.keys(nodes);
        throw new LabFileError(where.file, pos, `group ${name}: unknown node "${member}"; ${known.length ? `nodes: ${known.join(', ')}` : 'the file has no nodes'}`);
      }
      if (members.indexOf(member) !== i) throw new LabFileError(where.file, pos, `${member} is in group ${name} twice`);
      if (!sets.length) return;
      if (node.device === undefined) throw new LabFileError(where.file, pos, `${member} is not a device node: group ${name} sets ${sets[0][0]}:, which is for device nodes (device: frr)`);
      if (DEVICES[node.device]?.role !== 'router') throw new LabFileError(where.file, pos, `${member} is a ${node.device} host: group ${name} sets ${sets[0][0]}:, which is for routers`);
      const settings = out.get(member) ?? { bgp: {}, ospf: {} };
      for (const [module, key] of sets) {
        const given = value[module][key];
        const before = (settings[module] as Raw)[key];
        const id = `${member}\0${module}.${key}`;
        if (before !== undefined && canonical(module, key, before) !== canonical(module, key, given)) {
          throw new LabFileError(where.file, pos, `${member} is in group ${source.get(id)} with ${describe(module, key, before)} and in group ${name} with ${describe(module, key, given)}: two groups give ${member} different values; take it out of one`);
        }
        (settings[module] as Raw)[key] = given;
        source.set(id, source.get(id) ?? name);
      }
      out.set(member, settings);
    });
  }
  return out;
}
