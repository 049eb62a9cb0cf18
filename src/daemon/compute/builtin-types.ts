import { findExecutable, findExecutables } from '../../util/which.js';
import {
  ETHERNET_HUB_CREATE_SCHEMA, ETHERNET_HUB_UPDATE_SCHEMA, ETHERNET_SWITCH_CREATE_SCHEMA, ETHERNET_SWITCH_UPDATE_SCHEMA, VPCS_CREATE_SCHEMA, VPCS_UPDATE_SCHEMA,
} from '../schemas/nodes.js';
import { QEMU_CREATE_SCHEMA, QEMU_UPDATE_SCHEMA } from '../schemas/qemu.js';
import { QemuNode, type QemuShared } from './nodes/qemu-node.js';
import { nodeType, NodeTypeRegistry, type ComputeNode } from './node-types.js';
import { EthernetHubNode } from './nodes/ethernet-hub.js';
import { EthernetSwitchNode } from './nodes/ethernet-switch.js';
import { VpcsNode, type VpcsShared } from './nodes/vpcs-node.js';

/** The registry of node kinds this compute runs. */
export function builtinNodeTypes(vpcs: VpcsShared, qemu: QemuShared): NodeTypeRegistry {
  return new NodeTypeRegistry()
    .register(nodeType({
      type: 'ethernet_switch',
      createSchema: ETHERNET_SWITCH_CREATE_SCHEMA,
      updateSchema: ETHERNET_SWITCH_UPDATE_SCHEMA,
      create: (body, ctx) => EthernetSwitchNode.create(body, ctx) as Promise<ComputeNode>,
      available: () => true,
    }))
    .register(nodeType({
      type: 'ethernet_hub',
      createSchema: ETHERNET_HUB_CREATE_SCHEMA,
      updateSchema: ETHERNET_HUB_UPDATE_SCHEMA,
      create: (body, ctx) => EthernetHubNode.create(body, ctx) as Promise<ComputeNode>,
      available: () => true,
    }))
    .register(nodeType({
      type: 'vpcs',
      createSchema: VPCS_CREATE_SCHEMA,
      updateSchema: VPCS_UPDATE_SCHEMA,
      create: (body, ctx, opts) => VpcsNode.create(body, ctx, vpcs, opts) as Promise<ComputeNode>,
      available: () => findExecutable(vpcs.binary ?? 'vpcs', vpcs.env) !== undefined,
      startAnswersNode: true,
    }))
    .register(nodeType({
      type: 'qemu',
      createSchema: QEMU_CREATE_SCHEMA,
      updateSchema: QEMU_UPDATE_SCHEMA,
      create: (body, ctx, opts) => QemuNode.create(body, ctx, qemu, opts) as Promise<ComputeNode>,
      available: () => findExecutables(/^qemu-system-/, qemu.env).length > 0,
      startAnswersNode: true,
    }));
}
