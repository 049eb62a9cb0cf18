import { ethernetPort, type NodePort } from '../../controller/node-ports.js';
import type { TemplateField } from '../../controller/template-types.js';
import { InvalidError } from '../../errors.js';
import { validate } from '../../schemas/validation.js';
import type { NodeKind, NodeView } from '../kind.js';
import { DaemonIdentity, removeLeftovers } from './container-labels.js';
import { DockerEngine } from './docker-engine.js';
import { DockerNode } from './docker-node.js';
import { DOCKER_IMAGES_ROUTE, dockerRoutes } from './docker-routes.js';
import { ALL_CAPABILITIES, checkContainment, DEFAULT_CAPABILITIES } from './containment.js';
import { DOCKER_CREATE_SCHEMA, DOCKER_UPDATE_SCHEMA } from './docker-schemas.js';
import { applySettings, defaultSettings } from './docker-settings.js';

const text = (value = ''): TemplateField => ({ type: 'string', default: value });

/** GNS3 2.2's docker ports: adapter N is the container's ethN (short name too), unless custom_adapters renames it. */
function dockerPorts(node: NodeView): NodePort[] {
  const adapters = Number(node.computeState.adapters ?? node.properties.adapters ?? 1);
  const custom = (node.layout.custom_adapters ?? []) as { adapter_number?: number; port_name?: string }[];
  return Array.from({ length: adapters }, (_, a) => {
    const name = custom.find((c) => c.adapter_number === a)?.port_name ?? `eth${a}`;
    return { ...ethernetPort(name, a, 0), short_name: name };
  });
}

/** GNS3 2.2's docker node type, on the compute's Docker engine. */
export const DOCKER_KIND: NodeKind = {
  type: 'docker',
  controller: {
    alwaysRunning: false,
    ports: dockerPorts,
    defaultConsoleType: 'telnet',
    exec: true,
    emuctlOnlyProperties: ['cap_add', 'privileged', 'mgmt_ipv4', 'mgmt_ipv6'],
    imageIsReference: true,
    computeFields: (node) => (node.layout.custom_adapters?.length ? { custom_adapters: node.layout.custom_adapters } : {}),
    // A remote compute may be a GNS3 server that checks nothing: what would reach Docker is checked here too.
    checkProperties: (p, policy) => {
      const known = Object.fromEntries(Object.entries(p).filter(([key]) => key in DOCKER_CREATE_SCHEMA.properties));
      const body = validate(DOCKER_UPDATE_SCHEMA, known, 'docker node properties');
      checkContainment(applySettings(defaultSettings(body.image ?? 'image'), body), policy);
    },
  },
  template: {
    category: 'guest',
    default_name_format: '{name}-{0}',
    symbol: ':/symbols/docker_guest.svg',
    fields: {
      image: { type: 'string', minLength: 1 },
      usage: text(),
      adapters: { type: 'integer', minimum: 0, maximum: 99, default: 1 },
      start_command: text(),
      environment: text(),
      console_type: { enum: ['telnet', 'vnc', 'http', 'https', 'none'], default: 'telnet' },
      console_auto_start: { type: 'boolean', default: false },
      console_resolution: { type: 'string', pattern: '^[0-9]+x[0-9]+$', default: '1024x768' },
      console_http_port: { type: 'integer', minimum: 1, maximum: 65535, default: 80 },
      console_http_path: text('/'),
      extra_hosts: text(),
      extra_volumes: { type: 'array', items: { type: 'string' }, default: [] },
      custom_adapters: { type: 'array', default: [] },
      aux_type: { enum: ['telnet', 'none'], default: 'telnet' },
      cap_add: { type: 'array', items: { enum: ALL_CAPABILITIES }, uniqueItems: true, default: DEFAULT_CAPABILITIES },
      privileged: { type: 'boolean', default: false },
    },
    check: (t, policy) => {
      if (typeof t.image !== 'string' || !t.image) throw new InvalidError('a docker template needs an image');
      checkContainment(applySettings(defaultSettings(t.image), t), policy);
    },
  },
  compute(deps) {
    const engine = new DockerEngine(deps.env);
    const identity = new DaemonIdentity(deps.settings.paths.runDir);
    const policy = { dockerUnsafeCaps: deps.settings.dockerUnsafeCaps, dockerRegistries: deps.settings.dockerRegistries };
    if (policy.dockerUnsafeCaps) deps.log.warn('docker_unsafe_caps is on: docker nodes may be privileged and take any capability, so anyone who can create or import a node can become root on this host');
    const shared = { engine, identity, log: deps.log, policy };
    return {
      createSchema: DOCKER_CREATE_SCHEMA,
      updateSchema: DOCKER_UPDATE_SCHEMA,
      create: (body, ctx, opts) => DockerNode.create(body as never, ctx, shared, opts),
      available: () => engine.available(),
      startAnswersNode: true,
      routes: (router, compute) => dockerRoutes(router, compute, engine, deps.settings.maxImageBytes),
      streamedRoutes: [DOCKER_IMAGES_ROUTE],
      async cleanupLeftovers() {
        if (!(await engine.ready().then(() => true, () => false))) return;
        for (const name of await removeLeftovers(engine.docker, identity)) deps.log.warn(`removed leftover container ${name} from a previous run`);
      },
    };
  },
};
