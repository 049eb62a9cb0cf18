import { computeKind } from '../../compute/node-types.js';
import { ethernetPort } from '../../controller/node-ports.js';
import type { TemplateSpec } from '../../controller/template-types.js';
import type { NodeKind } from '../kind.js';
import { NatHost } from './nat-host.js';
import { NatNode } from './nat-node.js';
import { NAT_CREATE_SCHEMA, NAT_UPDATE_SCHEMA } from './schemas.js';

const TEMPLATE: TemplateSpec = {
  category: 'guest',
  default_name_format: 'NAT{0}',
  symbol: ':/symbols/cloud.svg',
  fields: {},
  builtin: { name: 'NAT' },
};

/** GNS3's NAT node: DHCP and outbound NAT for the lab, through emuctl's own bridge (no libvirt). */
export const NAT_KIND: NodeKind = {
  type: 'nat',
  controller: { alwaysRunning: true, ports: () => [ethernetPort('nat0', 0, 0)], apiSymbol: TEMPLATE.symbol },
  template: TEMPLATE,
  compute: ({ settings, env, log, registry }) => {
    const host = new NatHost({ subnet: settings.natSubnet, runDir: settings.paths.runDir, env, log, registry });
    return computeKind({
      createSchema: NAT_CREATE_SCHEMA,
      updateSchema: NAT_UPDATE_SCHEMA,
      create: (body, ctx) => NatNode.create(body, ctx, host),
      available: () => host.missing() === undefined,
      cleanupLeftovers: () => host.cleanupLeftovers(),
      close: () => host.close(),
    });
  },
};
