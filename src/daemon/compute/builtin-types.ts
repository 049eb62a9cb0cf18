import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import {
  ETHERNET_HUB_CREATE_SCHEMA, ETHERNET_HUB_UPDATE_SCHEMA, ETHERNET_SWITCH_CREATE_SCHEMA, ETHERNET_SWITCH_UPDATE_SCHEMA, VPCS_CREATE_SCHEMA, VPCS_UPDATE_SCHEMA,
} from '../schemas/nodes.js';
import { NodeTypeRegistry, type ComputeNode } from './node-types.js';
import { EthernetHubNode, type HubCreate } from './nodes/ethernet-hub.js';
import { EthernetSwitchNode, type SwitchCreate } from './nodes/ethernet-switch.js';
import { VpcsNode, type VpcsCreate, type VpcsShared } from './nodes/vpcs-node.js';

/** The registry of node kinds this compute runs. */
export function builtinNodeTypes(vpcs: VpcsShared): NodeTypeRegistry {
  return new NodeTypeRegistry()
    .register({
      type: 'ethernet_switch',
      createSchema: ETHERNET_SWITCH_CREATE_SCHEMA,
      updateSchema: ETHERNET_SWITCH_UPDATE_SCHEMA,
      create: (body, ctx) => EthernetSwitchNode.create(body as unknown as SwitchCreate, ctx) as Promise<ComputeNode>,
      available: () => true,
    })
    .register({
      type: 'ethernet_hub',
      createSchema: ETHERNET_HUB_CREATE_SCHEMA,
      updateSchema: ETHERNET_HUB_UPDATE_SCHEMA,
      create: (body, ctx) => EthernetHubNode.create(body as unknown as HubCreate, ctx) as Promise<ComputeNode>,
      available: () => true,
    })
    .register({
      type: 'vpcs',
      createSchema: VPCS_CREATE_SCHEMA,
      updateSchema: VPCS_UPDATE_SCHEMA,
      create: (body, ctx) => VpcsNode.create(body as unknown as VpcsCreate, ctx, vpcs) as Promise<ComputeNode>,
      available: () => onPath(vpcs.binary ?? 'vpcs'),
      startAnswersNode: true,
    });
}

function onPath(binary: string): boolean {
  const candidates = binary.includes('/') ? [binary] : (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((d) => join(d, binary));
  return candidates.some((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
