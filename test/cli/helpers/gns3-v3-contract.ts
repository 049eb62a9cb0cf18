import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { WebSocketServer } from 'ws';

/**
 * A GNS3 3.0.6 controller as the recorded contract describes it (test/fixtures/gns3-v3/: the
 * server's runtime OpenAPI document and a session of real exchanges). Every request must match a
 * route and method of the OpenAPI document, carry the bearer token the server issued where the
 * route asks for one, and (JSON bodies) validate against the route's request schema; the answer
 * is the recorded exchange of that method and route. Anything else is answered as GNS3 3.0.6
 * answered it (404 `{"detail": "Not Found"}`, 401, 422) and recorded in `violations`, so a test
 * fails on a request the real server would not accept.
 */

const FIXTURES = new URL('../../../../test/fixtures/gns3-v3/', import.meta.url);

/** One recorded exchange (see scripts/record-gns3-v3-contract.mjs). */
export interface Exchange {
  label: string;
  method: string;
  path: string;
  query: Record<string, string> | null;
  auth: boolean;
  request: unknown;
  status: number;
  contentType?: string | null;
  response?: unknown;
  messages?: unknown[];
}

/** What the contract server saw. */
export interface ContractRequest {
  method: string;
  route: string;
  path: string;
  query: Record<string, string>;
  authorization?: string;
  body?: unknown;
  status: number;
}

export interface ContractServer {
  url: string;
  /** The token the login routes issue (a JWT-shaped string with an `exp`). */
  token: string;
  requests: ContractRequest[];
  /** Requests the real server would have refused or does not know. */
  violations: string[];
  /** Makes the next request with the current token fail with 401 (a token the server no longer takes). */
  revokeToken(): void;
  close(): Promise<void>;
}

/** The recorded session and OpenAPI document. */
export function loadContract(): { openapi: any; session: { recorded: string; server: string; exchanges: Exchange[] } } {
  return {
    openapi: JSON.parse(readFileSync(new URL('openapi.json', FIXTURES), 'utf8')),
    session: JSON.parse(readFileSync(new URL('session.json', FIXTURES), 'utf8')),
  };
}

/** Fixed ids standing for the recorded `{project_id}`, `{pc1_id}`… placeholders. */
export const IDS: Record<string, string> = {
  project_id: '1a2b3c4d-0000-4000-8000-000000000001',
  pc1_id: '1a2b3c4d-0000-4000-8000-000000000002',
  pc2_id: '1a2b3c4d-0000-4000-8000-000000000003',
  sw_id: '1a2b3c4d-0000-4000-8000-000000000004',
  link1_id: '1a2b3c4d-0000-4000-8000-000000000005',
  link2_id: '1a2b3c4d-0000-4000-8000-000000000006',
  pool_id: '1a2b3c4d-0000-4000-8000-000000000007',
  import_id: '1a2b3c4d-0000-4000-8000-000000000008',
};

function withIds(text: string, token: string): string {
  let out = text.split('<token>').join(token);
  for (const [name, id] of Object.entries(IDS)) out = out.split(`{${name}}`).join(id);
  return out;
}

interface Route {
  template: string;
  pattern: RegExp;
  methods: Record<string, any>;
}

function routesOf(openapi: any): Route[] {
  return Object.entries(openapi.paths as Record<string, any>).map(([template, methods]) => {
    // FastAPI's `{x:path}` parameters (endpoint_path, image_path, file_path) span several segments.
    const source = template.replace(/[.]/g, '\\.').replace(/\{(\w+)\}/g, (_m, name: string) => (/_path$/.test(name) ? '(.+)' : '([^/]+)'));
    return { template, pattern: new RegExp(`^${source}$`), methods };
  }).sort((a, b) => b.template.length - a.template.length);
}

/** A recorded path as its route template. */
function templateOf(routes: Route[], path: string): string | undefined {
  const concrete = withIds(path, '');
  return routes.find((r) => r.pattern.test(concrete))?.template;
}

/** Starts the contract server on an ephemeral loopback port. */
export async function startContractServer(credentials = { username: 'admin', password: 'admin' }): Promise<ContractServer> {
  const { openapi, session } = loadContract();
  const routes = routesOf(openapi);
  const require = createRequire(import.meta.url);
  const Ajv2020 = require('ajv/dist/2020.js').default;
  const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: false });
  ajv.addSchema({ $id: 'gns3', components: openapi.components });
  const exp = Math.floor(Date.now() / 1000) + 24 * 3600;
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const token = `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: credentials.username, exp })}.c2lnbmF0dXJl`;
  let revoked: string | undefined;
  const requests: ContractRequest[] = [];
  const violations: string[] = [];

  const byRoute = new Map<string, Exchange[]>();
  for (const exchange of session.exchanges) {
    if (exchange.method === 'WEBSOCKET') continue;
    const template = templateOf(routes, exchange.path);
    if (!template) continue;
    const key = `${exchange.method} ${template}`;
    byRoute.set(key, [...(byRoute.get(key) ?? []), exchange]);
  }
  const websockets = session.exchanges.filter((e) => e.method === 'WEBSOCKET' && e.status === 101);

  const send = (res: ServerResponse, status: number, body: unknown, contentType = 'application/json') => {
    if (status === 204 || body === null || body === undefined) return res.writeHead(status).end();
    res.writeHead(status, { 'content-type': contentType }).end(typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body));
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const method = req.method ?? 'GET';
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const query = Object.fromEntries(url.searchParams);
    const route = routes.find((r) => r.pattern.test(url.pathname));
    const operation = route?.methods[method.toLowerCase()];
    const record = (status: number, body?: unknown) => requests.push({ method, route: route?.template ?? url.pathname, path: url.pathname, query, authorization: req.headers.authorization, body, status });
    if (!route || !operation) {
      violations.push(`${method} ${url.pathname}: no such route in GNS3 3.0.6`);
      record(route ? 405 : 404);
      return send(res, route ? 405 : 404, { detail: route ? 'Method Not Allowed' : 'Not Found' });
    }
    const isJson = (req.headers['content-type'] ?? '').includes('json');
    let body: unknown;
    if (isJson && raw.length) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        violations.push(`${method} ${url.pathname}: a body that is not JSON`);
        record(422);
        return send(res, 422, { message: 'JSON decode error' });
      }
    }
    if (operation.security) {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? query.token;
      if (!bearer) {
        record(401, body);
        return send(res, 401, { message: 'Not authenticated' });
      }
      if (bearer !== token || bearer === revoked) {
        record(401, body);
        return send(res, 401, { message: 'Could not validate credentials' });
      }
    }
    const schema = operation.requestBody?.content?.['application/json']?.schema;
    if (schema && isJson) {
      const check = ajv.compile(JSON.parse(JSON.stringify(schema).split('"#/components').join('"gns3#/components')));
      if (!check(body ?? {})) {
        violations.push(`${method} ${url.pathname}: body refused by the schema: ${ajv.errorsText(check.errors)}`);
        record(422, body);
        return send(res, 422, { message: `validation error: ${ajv.errorsText(check.errors)}` });
      }
    }
    if (route.template === '/v3/access/users/authenticate' || route.template === '/v3/access/users/login') {
      const given = (body ?? Object.fromEntries(new URLSearchParams(raw.toString('utf8')))) as { username?: string; password?: string };
      const ok = given.username === credentials.username && given.password === credentials.password;
      record(ok ? 200 : 401, { username: given.username, password: '<hidden>' });
      if (ok) revoked = undefined;
      return ok ? send(res, 200, { access_token: token, token_type: 'bearer' }) : send(res, 401, { message: 'Authentication was unsuccessful.' });
    }
    const recorded = byRoute.get(`${method} ${route.template}`);
    if (!recorded) {
      violations.push(`${method} ${route.template}: in the OpenAPI document but not in the recorded session`);
      record(501, body);
      return send(res, 501, { message: 'not recorded' });
    }
    // The recorded success of this route, else its first recording.
    const exchange = recorded.find((e) => e.status < 300 && (e.query === null || Object.keys(e.query).every((k) => query[k] === e.query![k]))) ?? recorded.find((e) => e.status < 300) ?? recorded[0];
    record(exchange.status, body);
    const answer = exchange.response;
    if (answer && typeof answer === 'object' && 'bytes' in (answer as object) && !Array.isArray(answer)) {
      const { bytes, contentType } = answer as { bytes: number; contentType: string };
      const file = route.template.endsWith('/export') ? readFileSync(new URL('export-zstd.gns3project', FIXTURES)) : Buffer.alloc(bytes);
      return send(res, exchange.status, file, contentType);
    }
    if (route.template.endsWith('/capture/stream') && exchange.status === 200) {
      // A pcap global header (libpcap, EN10MB), then the stream ends.
      const header = Buffer.from('d4c3b2a1020004000000000000000000ffff000001000000', 'hex');
      return send(res, 200, header, 'application/vnd.tcpdump.pcap');
    }
    return send(res, exchange.status, answer === null || answer === undefined ? null : JSON.parse(withIds(JSON.stringify(answer), token)));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      violations.push(`server error: ${err.message}`);
      if (!res.headersSent) send(res, 500, { message: 'contract server error' });
    });
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const concrete = url.pathname;
    const recorded = websockets.find((e) => withIds(e.path, '') === concrete || new RegExp(`^${e.path.replace(/\{\w+\}/g, '[^/]+')}$`).test(concrete));
    const given = url.searchParams.get('token');
    requests.push({ method: 'WEBSOCKET', route: recorded?.path ?? concrete, path: concrete, query: Object.fromEntries(url.searchParams), authorization: req.headers.authorization, status: recorded ? 101 : 404 });
    if (!recorded) {
      violations.push(`WEBSOCKET ${concrete}: no such websocket in GNS3 3.0.6`);
      socket.end('HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    if (given !== token || given === revoked) {
      // GNS3 3.0.6 refuses a websocket without a valid ?token= with 403 (recorded).
      socket.end('HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      for (const message of recorded.messages ?? []) ws.send(typeof message === 'string' ? message : withIds(JSON.stringify(message), token));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    token,
    requests,
    violations,
    revokeToken: () => (revoked = token),
    close: async () => {
      for (const client of wss.clients) client.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
