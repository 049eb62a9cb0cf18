import { InvalidArgumentError } from 'commander';
import { PORT_TYPES, QINQ_ETHERTYPES, type PortType } from '../../client/switches.js';

/** Most ports `switch create --ports` makes (a guard against typos such as 80000). */
export const MAX_SWITCH_PORTS = 1024;

/** Parses --ports: 1 to MAX_SWITCH_PORTS. */
export function parsePortCount(value: string): number {
  const count = Number(value);
  if (!/^\d+$/.test(value) || count < 1 || count > MAX_SWITCH_PORTS) throw new InvalidArgumentError(`expected a number of ports 1-${MAX_SWITCH_PORTS}.`);
  return count;
}

/** Parses a switch port or adapter number (digits only, as the compute routes take them). */
export function parsePortNumber(value: string): number {
  if (!/^\d{1,9}$/.test(value)) throw new InvalidArgumentError('expected a port number (0, 1, 2, …).');
  return Number(value);
}

/** Parses --vlan: 1-4094. */
export function parseVlan(value: string): number {
  const vlan = Number(value);
  if (!/^\d+$/.test(value) || vlan < 1 || vlan > 4094) throw new InvalidArgumentError('expected a VLAN 1-4094.');
  return vlan;
}

/** Parses --type: access, dot1q or qinq. */
export function parsePortType(value: string): PortType {
  const type = value.toLowerCase() as PortType;
  if (!PORT_TYPES.includes(type)) throw new InvalidArgumentError(`expected one of ${PORT_TYPES.join(', ')}.`);
  return type;
}

/** Parses --ethertype (any case, with or without 0x) into GNS3's spelling, e.g. 0x88A8. */
export function parseEthertype(value: string): string {
  const spelled = `0x${value.replace(/^0x/i, '').toUpperCase()}`;
  if (!(QINQ_ETHERTYPES as readonly string[]).includes(spelled)) throw new InvalidArgumentError(`expected one of ${QINQ_ETHERTYPES.join(', ')}.`);
  return spelled;
}
