import { NodeTypeRegistry } from '../compute/node-types.js';
import { DOCKER_KIND } from './docker/index.js';
import { CLOUD_KIND } from './cloud/index.js';
import { ETHERNET_HUB_KIND } from './ethernet-hub/index.js';
import { ETHERNET_SWITCH_KIND } from './ethernet-switch/index.js';
import type { KindDeps, NodeKind } from './kind.js';
import { NAT_KIND } from './nat/index.js';
import { QEMU_KIND } from './qemu/index.js';
import { VPCS_KIND } from './vpcs/index.js';

/** Every node kind, in the order GNS3 lists them: the one list both registries are built from. */
export const NODE_KINDS: readonly NodeKind[] = [ETHERNET_SWITCH_KIND, ETHERNET_HUB_KIND, VPCS_KIND, QEMU_KIND, DOCKER_KIND, CLOUD_KIND, NAT_KIND];

/** The compute's registry: each kind's compute side, built from the daemon's dependencies. */
export function computeNodeTypes(deps: KindDeps, kinds: readonly NodeKind[] = NODE_KINDS): NodeTypeRegistry {
  const registry = new NodeTypeRegistry();
  for (const kind of kinds) registry.register({ type: kind.type, ...kind.compute(deps) });
  return registry;
}
