import type { Router } from 'express';
import { checkCaptureFileName } from '../../compute/capture-files.js';
import type { PortAddress } from '../../compute/compute-api.js';
import type { LocalCompute } from '../../compute/local-compute.js';
import type { NioJson } from '../../compute/node-context.js';
import type { NodeTypeDefinition } from '../../compute/node-types.js';
import { validateFilters } from '../../dataplane/filters/catalog.js';
import type { LinkFilters } from '../../dataplane/types.js';
import { ConflictError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { route } from '../route.js';
import { sendPcap, type StreamSlots } from '../streams.js';
import { NIO_ETHERNET_SCHEMA, NIO_NULL_SCHEMA, NIO_TAP_SCHEMA, NIO_TYPE_SCHEMA, NIO_UDP_SCHEMA, NODE_CAPTURE_SCHEMA } from '../../schemas/nio.js';
import { COMPUTE_NODE_DUPLICATE_SCHEMA } from '../../schemas/nodes.js';
import { EMPTY_SCHEMA } from '../../schemas/project.js';
import { schema, validate } from '../../schemas/validation.js';

/** Route templates of one node type's compute routes. */
export function nodeTemplates(nodeType: string) {
  const nodes = `/v2/compute/projects/{project_id}/${nodeType}/nodes`;
  const node = `${nodes}/{node_id}`;
  // GNS3's own templates (its X-Route) carry the digit patterns of the port numbers.
  const port = `${node}/adapters/{adapter_number:\\d+}/ports/{port_number:\\d+}`;
  return { nodes, node, nio: `${port}/nio`, startCapture: `${port}/start_capture`, stopCapture: `${port}/stop_capture`, pcap: `${port}/pcap` };
}

const NIO_FILTERS_SCHEMA = schema({
  type: 'object',
  properties: { filters: { type: 'object', additionalProperties: { type: 'array' } }, suspend: { type: 'boolean' } },
});

/** The compute routes of every registered node type: CRUD, actions, NIOs, captures, MAC table, stats. */
export function computeNodeRoutes(router: Router, deps: { compute: LocalCompute; streams: StreamSlots; log: Logger }): void {
  for (const def of deps.compute.nodeTypes.all()) nodeTypeRoutes(router, deps, def);
}

function nodeTypeRoutes(router: Router, { compute, streams, log }: { compute: LocalCompute; streams: StreamSlots; log: Logger }, def: NodeTypeDefinition): void {
  const t = nodeTemplates(def.type);
  const nodeOf = (p: Record<string, string>) => compute.project(p.project_id).node(def.type, p.node_id);
  const at = (p: Record<string, string>): PortAddress => ({ projectId: p.project_id, nodeType: def.type, nodeId: p.node_id, adapter: Number(p.adapter_number), port: Number(p.port_number) });

  route(router, { method: 'post', template: t.nodes, body: def.createSchema, status: 201 }, ({ params, body }) => compute.createNode(params.project_id, def.type, body));
  route(router, { method: 'get', template: t.node }, ({ params }) => nodeOf(params).toJSON());
  route(router, { method: 'put', template: t.node, body: def.updateSchema }, ({ params, body }) => compute.updateNode(params.project_id, def.type, params.node_id, body));
  route(router, { method: 'delete', template: t.node, status: 204 }, ({ params }) => compute.deleteNode(params.project_id, def.type, params.node_id));
  for (const action of ['start', 'stop', 'suspend', 'reload'] as const) {
    const answersNode = action === 'start' && def.startAnswersNode === true;
    route(router, { method: 'post', template: `${t.node}/${action}`, body: EMPTY_SCHEMA, status: answersNode ? 200 : 204 }, async ({ params }) => {
      await compute.nodeAction(params.project_id, def.type, params.node_id, action);
      if (answersNode) return nodeOf(params).toJSON();
    });
  }
  route(router, { method: 'post', template: `${t.node}/duplicate`, body: COMPUTE_NODE_DUPLICATE_SCHEMA, status: 201 }, async ({ params, body }) => {
    await compute.duplicateNode(params.project_id, def.type, params.node_id, body.destination_node_id.toLowerCase());
    return true;
  });
  route(router, { method: 'post', template: t.nio, body: NIO_TYPE_SCHEMA, status: 201 }, ({ params, body }) => compute.addNio(at(params), checkNio(body)));
  route(router, { method: 'put', template: t.nio, body: NIO_FILTERS_SCHEMA, status: 201 }, ({ params, body }) => compute.updateNio(at(params), checkFilters(body)));
  route(router, { method: 'delete', template: t.nio, status: 204 }, ({ params }) => compute.removeNio(at(params)));
  route(router, { method: 'post', template: t.startCapture, body: NODE_CAPTURE_SCHEMA }, ({ params, body }) => compute.startCapture(at(params), { ...body, capture_file_name: checkCaptureFileName(body.capture_file_name) }));
  route(router, { method: 'post', template: t.stopCapture, body: EMPTY_SCHEMA, status: 204 }, ({ params }) => compute.stopCapture(at(params)));
  route(router, { method: 'get', template: t.pcap, raw: true }, ({ params, res }) => sendPcap(res, streams, () => compute.pcapStream(at(params)), log));
  route(router, { method: 'get', template: `${t.node}/mac_table` }, ({ params }) => nodeOf(params).macTable());
  route(router, { method: 'get', template: `${t.node}/stats` }, ({ params }) => nodeOf(params).stats());
}

/** Validates a NIO against its type's schema, and its filters against the catalogue; types this compute cannot run are a 409, not a fake success. */
function checkNio(body: { type: string }): NioJson {
  if (body.type === 'nio_udp') return checkFilters(validate(NIO_UDP_SCHEMA, body));
  if (body.type === 'nio_null') return checkFilters(validate(NIO_NULL_SCHEMA, body));
  if (body.type === 'nio_tap') return checkFilters(validate(NIO_TAP_SCHEMA, body));
  if (body.type === 'nio_ethernet') return checkFilters(validate(NIO_ETHERNET_SCHEMA, body));
  throw new ConflictError(`NIO type ${body.type} is not supported on this compute (supported: nio_udp, nio_null, nio_tap, nio_ethernet)`);
}

/** The body with its filters checked once, here at the compute's edge: the node and the dataplane take them as they are. */
function checkFilters<T extends { filters?: Record<string, unknown[]> }>(body: T): Omit<T, 'filters'> & { filters?: LinkFilters } {
  return body.filters === undefined ? (body as Omit<T, 'filters'>) : { ...body, filters: validateFilters(body.filters) };
}
