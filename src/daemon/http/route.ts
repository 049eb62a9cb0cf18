import type { Request, Response, Router, NextFunction } from 'express';
import { isUuid } from '../../util/uuid.js';
import { InvalidError } from '../errors.js';
import { sendJson } from './json-response.js';
import { coerceQuery, validate, type JsonSchema, type TypedSchema } from '../schemas/validation.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

/** The contract of one route: its GNS3 template, body schema and success status. */
export interface RouteSpec {
  method: HttpMethod;
  /** GNS3 template, e.g. `/v2/projects/{project_id}`; `{action:.+}` matches one or more segments, `{port_number:\d+}` digits. */
  template: string;
  /** Body schema; the query string is merged into the body before validation, as GNS3 does. */
  body?: JsonSchema;
  /** Success status (default 200; 204 sends no body). */
  status?: number;
  /** The handler writes the response itself (streams). */
  raw?: boolean;
}

export interface RouteCall<B = unknown> {
  params: Record<string, string>;
  body: B;
  query: Record<string, string>;
  req: Request;
  res: Response;
}

export type RouteHandler<B = unknown> = (call: RouteCall<B>) => Promise<unknown> | unknown;

const DIGITS = /^\d+$/;

export interface MountedTemplate {
  method: HttpMethod;
  pattern: RegExp;
  template: string;
}
const mounted = new WeakMap<Router, MountedTemplate[]>();

/** The templates mounted on a router, so that a wrong method can be told from an unknown URL. */
export function templatesOf(router: Router): MountedTemplate[] {
  return mounted.get(router) ?? [];
}

/**
 * Mounts one route: sets X-Route, checks path parameters, parses and validates the body, maps the result.
 * The handler's body has the type of `spec.body` when that schema was made with `schema()`; an
 * untyped schema leaves it `unknown`, so a handler cannot use a body whose type no schema gives.
 */
export function route<B = unknown>(router: Router, spec: RouteSpec & { body?: TypedSchema<B> }, handler: RouteHandler<B>): void {
  const expressPath = spec.template.replace(/\{(\w+):\.\+\}/g, '*$1').replace(/\{(\w+)(?::\\d\+)?\}/g, ':$1');
  if (!mounted.has(router)) mounted.set(router, []);
  mounted.get(router)!.push({ method: spec.method, pattern: templatePattern(spec.template), template: spec.template });
  router[spec.method](expressPath, async (req: Request, res: Response, next: NextFunction) => {
    const params = flattenParams(req.params as Record<string, string | string[]>);
    if (!numbersAreDigits(params)) return next('route');
    res.setHeader('X-Route', spec.template);
    try {
      checkIds(params);
      const query = req.query as Record<string, string>;
      let body: unknown = (req as Request & { jsonBody?: unknown }).jsonBody ?? {};
      if (spec.body) {
        if (body && typeof body === 'object' && !Array.isArray(body)) body = { ...coerceQuery(spec.body, query), ...body };
        body = validate(spec.body, body);
      }
      const result = await handler({ params, body: body as B, query, req, res });
      if (spec.raw) return;
      const status = spec.status ?? 200;
      if (status === 204 || result === undefined) return void res.status(status === 200 && result === undefined ? 204 : status).end();
      sendJson(res, status, result);
    } catch (err) {
      next(err);
    }
  });
}

function flattenParams(raw: Record<string, string | string[]>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(raw)) out[k] = Array.isArray(v) ? v.join('/') : v;
  return out;
}

function numbersAreDigits(params: Record<string, string>): boolean {
  return Object.entries(params).every(([k, v]) => !k.endsWith('_number') || DIGITS.test(v));
}

/** Path parameters that end in _id but are not UUIDs: GNS3 has the compute `local` and symbols like `:/symbols/classic/computer.svg`. */
const NOT_UUID_IDS = ['compute_id', 'symbol_id'];

/** Path parameters named *_id are UUIDs, except those in NOT_UUID_IDS. */
function checkIds(params: Record<string, string>): void {
  for (const [k, v] of Object.entries(params)) {
    if (k.endsWith('_id') && !NOT_UUID_IDS.includes(k)) {
      if (!isUuid(v)) throw new InvalidError(`${k} '${v}' is not a valid UUID`);
      params[k] = v.toLowerCase();
    }
  }
}

/** The regular expression a route template matches request paths with. */
export function templatePattern(template: string): RegExp {
  const source = template
    .split(/(\{\w+(?::\.\+|:\\d\+)?\})/)
    .map((part) => (part.startsWith('{') ? (part.endsWith(':.+}') ? '.+' : part.includes('_number') ? '\\d+' : '[^/]+') : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}/?$`);
}
