import { Command, Option } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { OperationError, UsageError } from '../../cli/errors.js';
import { PORT_TYPES, QINQ_ETHERTYPES, updateSwitchPorts, type PortMapping, type PortType } from '../../client/switches.js';
import { projectOption } from '../shared/project.js';
import { resolveSwitch } from './address.js';
import { parseEthertype, parsePortType, parseVlan } from './parse.js';
import { portsOf } from './render.js';

/** Options of `switch set-port`. */
export interface SwitchSetPortOptions {
  switch: string;
  /** Port number or port name (e.g. 3 or Ethernet3). */
  port: string;
  type?: PortType;
  vlan?: number;
  ethertype?: string;
  project?: string;
}

/** `emuctl switch set-port SW PORT [--type T] [--vlan N] [--ethertype E] [-p P]`. */
export function switchSetPortCommand(f: Factory, run = runSwitchSetPort): Command {
  return new Command('set-port')
    .description("change a switch port's type and VLAN")
    .argument('<switch>', 'switch name, UUID or unique UUID prefix')
    .argument('<port>', 'port number or name (e.g. 3 or Ethernet3)')
    .addOption(new Option('--type <type>', `port type: ${PORT_TYPES.join(', ')}`).argParser(parsePortType))
    .addOption(new Option('--vlan <n>', 'VLAN 1-4094 (access VLAN, native VLAN of a dot1q trunk, outer VLAN of qinq)').argParser(parseVlan))
    .addOption(new Option('--ethertype <hex>', `outer tag ethertype of a qinq port: ${QINQ_ETHERTYPES.join(', ')} (default 0x8100)`).argParser(parseEthertype))
    .addOption(projectOption())
    .action(async (ref: string, port: string, flags: Omit<SwitchSetPortOptions, 'switch' | 'port'>, cmd: Command) =>
      run({ switch: ref, port, type: flags.type, vlan: flags.vlan, ethertype: flags.ethertype, project: flags.project }, await f.context(cmd)));
}

/** The port named by `ref`: its number, else its name. */
function findPort(ports: readonly PortMapping[], ref: string, switchName: string): PortMapping {
  const port = /^\d+$/.test(ref) ? ports.find((p) => p.port_number === Number(ref)) : ports.find((p) => p.name === ref);
  if (port) return port;
  const known = ports.map((p) => `${p.port_number} (${p.name})`).join(', ') || 'none';
  throw new OperationError(`switch ${switchName} has no port "${ref}"; its ports: ${known}`);
}

/** The port with the changes applied; a qinq port keeps (or gets 0x8100 as) its ethertype, other types have none. */
function changedPort(port: PortMapping, opts: SwitchSetPortOptions): PortMapping {
  const type = opts.type ?? port.type;
  if (opts.ethertype !== undefined && type !== 'qinq') {
    throw new UsageError(`--ethertype applies only to qinq ports (port ${port.port_number} would be ${type}); add --type qinq`);
  }
  const ethertype = type === 'qinq' ? opts.ethertype ?? (port.type === 'qinq' && port.ethertype ? port.ethertype : '0x8100') : '';
  return { name: port.name, port_number: port.port_number, type, vlan: opts.vlan ?? port.vlan ?? 1, ethertype };
}

/** Changes one entry of the switch's ports_mapping (PUT /v2/projects/{project_id}/nodes/{node_id}). */
export async function runSwitchSetPort(opts: SwitchSetPortOptions, ctx: Context): Promise<void> {
  if (opts.type === undefined && opts.vlan === undefined && opts.ethertype === undefined) {
    throw new UsageError('nothing to change: give --type, --vlan and/or --ethertype');
  }
  if (opts.ethertype !== undefined && opts.type !== undefined && opts.type !== 'qinq') {
    throw new UsageError(`--ethertype applies only to qinq ports, not ${opts.type}`);
  }
  const node = await resolveSwitch(ctx, opts.switch, opts.project);
  const ports = portsOf(node);
  const port = changedPort(findPort(ports, opts.port.trim(), node.name), opts);
  const mapping = ports.map((p) => (p.port_number === port.port_number ? port : p));
  const updated = await updateSwitchPorts(await ctx.api(), node.project_id, node.node_id, mapping);
  ctx.out.result(updated);
  const vlanText = port.type === 'dot1q' ? `native VLAN ${port.vlan}` : port.type === 'qinq' ? `outer VLAN ${port.vlan}, ethertype ${port.ethertype}` : `VLAN ${port.vlan}`;
  ctx.out.success(`Port ${port.port_number} (${port.name}) of ${node.name}: ${port.type}, ${vlanText}`);
}
