// The devices a lab node may name with `device:`: what emuctl knows about each (default image,
// how many interfaces and their names, how it is configured). Adding a device is one entry here.
import { FRR_START_COMMAND, FRR_START_FILE, FRR_VLAN_SCRIPT_PATH, FRR_VLAN_START_COMMAND, FRR_VTYSH_CONF, frrConf, frrDaemons, frrDaemonsOf, frrVlanScript } from './frr.js';
import { HOST_SCRIPT_PATH, HOST_START_COMMAND, hostScript } from './linux.js';
import type { LabPlan, PlanNode, Role } from './model.js';

/** A device's configuration: startup files (container path → text) and the container's start command. */
export interface DeviceConfig {
  files: Record<string, string>;
  cmd: string;
}

export interface Device {
  /** router: gets a loopback and runs the modules; host: an address and a default gateway per link. */
  role: Role;
  /** Default image (`${VAR:-default}` expanded like a node's image). */
  image: string;
  /** How many interfaces (docker adapters, eth0…) a node of it may have. */
  interfaces: number;
  /** Whether it makes 802.1Q sub-interfaces (a trunk of modules: [vlan] on it). */
  subinterfaces: boolean;
  configure(node: PlanNode, plan: LabPlan): DeviceConfig;
}

export const DEVICES: Record<string, Device> = {
  frr: {
    role: 'router',
    image: '${FRR_IMAGE:-emuctl/frr:latest}',
    interfaces: 64,
    subinterfaces: true,
    configure: (node, plan) => {
      const vlans = frrVlanScript(node);
      return {
        files: { '/etc/frr/frr.conf': frrConf(node, plan), '/etc/frr/daemons': frrDaemons(frrDaemonsOf(plan)), '/etc/frr/vtysh.conf': FRR_VTYSH_CONF, ...FRR_START_FILE, ...(vlans ? { [FRR_VLAN_SCRIPT_PATH]: vlans } : {}) },
        cmd: vlans ? FRR_VLAN_START_COMMAND : FRR_START_COMMAND,
      };
    },
  },
  linux: {
    role: 'host',
    image: '${HOST_IMAGE:-emuctl/host:latest}',
    interfaces: 8,
    subinterfaces: true,
    configure: (node) => ({ files: { [HOST_SCRIPT_PATH]: hostScript(node) }, cmd: HOST_START_COMMAND }),
  },
};

export const DEVICE_NAMES = Object.keys(DEVICES);
