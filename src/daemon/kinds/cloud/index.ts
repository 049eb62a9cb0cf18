import { computeKind } from '../../compute/node-types.js';
import { mappedPorts } from '../../controller/node-ports.js';
import type { TemplateSpec } from '../../controller/template-types.js';
import type { NodeKind } from '../kind.js';
import { missingHostAccess } from '../../compute/host-access.js';
import { CloudNode } from './cloud-node.js';
import { HOST_PORT_SCHEMA } from '../../schemas/adapters.js';
import { CLOUD_CREATE_SCHEMA, CLOUD_UPDATE_SCHEMA } from './schemas.js';

const TEMPLATE: TemplateSpec = {
  category: 'guest',
  default_name_format: 'Cloud{0}',
  symbol: ':/symbols/cloud.svg',
  fields: {
    ports_mapping: { type: 'array', items: HOST_PORT_SCHEMA, default: [] },
    remote_console_host: { type: 'string', minLength: 1, default: '127.0.0.1' },
    remote_console_port: { type: 'integer', minimum: 1, maximum: 65535, default: 23 },
    remote_console_type: { enum: ['telnet', 'vnc', 'spice', 'http', 'https', 'none'], default: 'none' },
    remote_console_http_path: { type: 'string', minLength: 1, default: '/' },
  },
  builtin: { name: 'Cloud' },
};

/** GNS3's cloud: lab ports bridged to host TAPs or interfaces through the dataplane. */
export const CLOUD_KIND: NodeKind = {
  type: 'cloud',
  controller: { alwaysRunning: true, ports: mappedPorts, apiSymbol: TEMPLATE.symbol },
  template: TEMPLATE,
  compute: ({ env }) => {
    const missing = () => missingHostAccess('the cloud node', env, {}, { raw: true });
    return computeKind({
      createSchema: CLOUD_CREATE_SCHEMA,
      updateSchema: CLOUD_UPDATE_SCHEMA,
      create: (body, ctx, opts) => CloudNode.create(body, ctx, missing, opts),
      available: () => missing() === undefined,
    });
  },
};
