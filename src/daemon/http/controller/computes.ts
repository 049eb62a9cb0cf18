import type { Router } from 'express';
import type { ComputeRegistry } from '../../controller/computes.js';
import { computeLabel, computeRequest, errorMessageOf, type ComputeEndpoint } from '../../controller/compute-http.js';
import { JSON_CONTENT_TYPE, sendJson } from '../json-response.js';
import { route } from '../route.js';
import { COMPUTE_CREATE_SCHEMA, COMPUTE_UPDATE_SCHEMA } from '../../schemas/compute.js';

export const COMPUTES_ROUTE = '/v2/computes';
export const COMPUTE_ROUTE = '/v2/computes/{compute_id}';
export const FORWARD_ROUTE = '/v2/computes/{compute_id}/{emulator}/{action:.+}';

export interface ComputeRouteDeps {
  computes: ComputeRegistry;
  forwardTimeoutMs: number;
  /** How the controller reaches its own compute routes (the local compute), with its own credentials. */
  self: () => ComputeEndpoint;
}

/** Controller compute registry routes and the forward route (GNS3 v2, bounded and with the query string kept). */
export function computeRegistryRoutes(router: Router, deps: ComputeRouteDeps): void {
  const { computes } = deps;
  route(router, { method: 'get', template: COMPUTES_ROUTE }, () => computes.list().map((c) => computes.toJSON(c)));
  route(router, { method: 'post', template: COMPUTES_ROUTE, body: COMPUTE_CREATE_SCHEMA, status: 201 }, async ({ body }) => computes.toJSON(await computes.add(body)));
  route(router, { method: 'get', template: COMPUTE_ROUTE }, ({ params }) => computes.toJSON(computes.get(params.compute_id)));
  route(router, { method: 'put', template: COMPUTE_ROUTE, body: COMPUTE_UPDATE_SCHEMA }, async ({ params, body }) =>
    computes.toJSON(await computes.update(params.compute_id, body)),
  );
  route(router, { method: 'delete', template: COMPUTE_ROUTE, status: 204 }, ({ params }) => computes.remove(params.compute_id));
  route(router, { method: 'get', template: `${COMPUTE_ROUTE}/ports` }, ({ params, req, res }) => forward(deps, params.compute_id, 'GET', '/v2/compute/network/ports', req, res));
  for (const method of ['get', 'post', 'put', 'delete'] as const) {
    route(router, { method, template: FORWARD_ROUTE, raw: true }, ({ params, req, res }) => {
      const path = `/v2/compute/${encodeURIComponent(params.emulator)}/${params.action.split('/').map(encodeURIComponent).join('/')}`;
      return forward(deps, params.compute_id, method.toUpperCase(), path, req, res);
    });
  }
}

/** Makes the same call on the compute and passes its status and JSON back; its errors name the compute. */
async function forward(deps: ComputeRouteDeps, computeId: string, method: string, path: string, req: import('express').Request, res: import('express').Response): Promise<void> {
  const record = deps.computes.get(computeId);
  const endpoint = computeId === 'local' ? deps.self() : record;
  const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
  // The body goes through as it came (JSON or an image upload): streamed, never parsed or re-encoded.
  const raw = method !== 'POST' && method !== 'PUT' ? undefined : { stream: req, contentType: req.headers['content-type'], contentLength: req.headers['content-length'] };
  const answer = await computeRequest(endpoint, method, path + query, { raw, timeoutMs: deps.forwardTimeoutMs });
  if (answer.status >= 400) {
    sendJson(res, answer.status, { message: `${computeLabel(record)}: ${errorMessageOf(answer)}`, status: answer.status });
    return;
  }
  // GNS3 answers 200 whatever success status the compute gave (a compute's 201 or 204 included).
  res.status(200).setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.end(answer.body);
}
