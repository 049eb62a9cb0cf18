import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { OperationError, UnreachableError, exitCodeFor } from '../../../src/cli/errors.js';
import { createApiClient } from '../../../src/client/got-client.js';

// A scripted HTTP endpoint to exercise the client's transport rules (timeouts, retries,
// error bodies) that a healthy daemon never shows. Commands are tested against the real daemon.
type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

describe('API client (got)', () => {
  let server: Server;
  let url: string;
  let handler: Handler = (_req, res) => res.end('{}');
  const seen: { method: string; url: string; auth?: string; body: string }[] = [];

  before(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization, body });
        handler(req, res, body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  const reply = (status: number, body: unknown): Handler => (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

  it('prefixes /v2, sends JSON bodies and basic auth from the profile', async () => {
    handler = reply(201, { project_id: 'x', name: 'lab' });
    seen.length = 0;
    const api = createApiClient({ url: `${url}/`, user: 'admin', password: 'pw' });
    assert.deepEqual(await api.post('projects', { name: 'lab' }), { project_id: 'x', name: 'lab' });
    assert.equal(seen[0].url, '/v2/projects');
    assert.equal(seen[0].body, '{"name":"lab"}');
    assert.equal(seen[0].auth, `Basic ${Buffer.from('admin:pw').toString('base64')}`);
  });

  it("maps an HTTP error to an OperationError with the server's message and status", async () => {
    handler = reply(409, { message: 'Project "lab" already exists', status: 409 });
    const err = await rejection(createApiClient({ url }).post('projects', { name: 'lab' }));
    assert.ok(err instanceof OperationError);
    assert.equal(err.message, 'Project "lab" already exists');
    assert.equal(err.status, 409);
    assert.equal(exitCodeFor(err), 1);
  });

  it('names the request when the error body is not GNS3 JSON, and hints at credentials on 401', async () => {
    handler = reply(404, '<html>nope</html>');
    const notFound = await rejection(createApiClient({ url }).get('projects/abc'));
    assert.equal(notFound.message, 'GET /v2/projects/abc: HTTP 404 Not Found');
    handler = reply(401, { message: 'Unauthorized', status: 401 });
    assert.match((await rejection(createApiClient({ url }).get('version'))).message, /Unauthorized \(check the profile's user and password\)/);
  });

  it('returns nothing for 204 No Content', async () => {
    handler = (_req, res) => res.writeHead(204).end();
    assert.equal(await createApiClient({ url }).delete('projects/x'), undefined);
  });

  it('retries idempotent requests on 503, never POST', async () => {
    handler = reply(503, { message: 'busy', status: 503 });
    seen.length = 0;
    await rejection(createApiClient({ url, retries: 2 }).get('version'));
    assert.equal(seen.length, 3);
    seen.length = 0;
    await rejection(createApiClient({ url, retries: 2 }).post('projects', {}));
    assert.equal(seen.length, 1);
    seen.length = 0;
    handler = (_req, res) => (seen.length < 2 ? reply(503, { message: 'busy' })(_req, res, '') : reply(200, { version: '2.2.0' })(_req, res, ''));
    assert.deepEqual(await createApiClient({ url }).get('version'), { version: '2.2.0' });
  });

  it('turns a server that does not answer in time into UnreachableError (exit 3)', async () => {
    handler = () => {}; // never answers
    const before = seen.length;
    const err = await rejection(createApiClient({ url, timeoutMs: 300, unreachableHint: 'start it' }).get('version'));
    assert.ok(err instanceof UnreachableError, String(err));
    assert.match(err.message, /cannot reach http:\/\/127\.0\.0\.1:\d+: no answer within 0\.3 s; start it/);
    assert.equal(seen.length - before, 1, 'a timeout is not retried');
  });

  it('a POST may take longer than the client\'s timeout when the call says so (a command run on a node)', async () => {
    handler = (_req, res) => void setTimeout(() => res.end('{"output":"","exit_code":0}'), 600);
    const client = createApiClient({ url, timeoutMs: 300 });
    assert.deepEqual(await client.post('projects/p/nodes/n/exec', { command: ['sleep', '1'] }, { timeoutMs: 5000 }), { output: '', exit_code: 0 });
    const err = await rejection(client.post('projects/p/nodes/n/exec', {}, { timeoutMs: 350 }));
    assert.ok(err instanceof UnreachableError, String(err));
    assert.match(err.message, /no answer within 0\.35 s/);
  });

  it('turns a refused connection into UnreachableError at once, with the hint', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const err = await rejection(createApiClient({ url: `http://127.0.0.1:${port}`, unreachableHint: "run 'emuctl daemon start'" }).get('version'));
    assert.ok(err instanceof UnreachableError);
    assert.equal(err.message, `cannot reach http://127.0.0.1:${port}: connection refused; run 'emuctl daemon start'`);
  });

  it('turns an unknown host into UnreachableError', async () => {
    const err = await rejection(createApiClient({ url: 'http://no-such-host.invalid:3080' }).get('version'));
    assert.ok(err instanceof UnreachableError);
    assert.match(err.message, /host not found|host name lookup failed/);
  });

  it('reports a non-JSON success as an operation error', async () => {
    handler = (_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
    const err = await rejection(createApiClient({ url }).get('version'));
    assert.ok(err instanceof OperationError);
    assert.match(err.message, /not JSON; is it a GNS3 v2 server\?/);
  });
});

async function rejection(promise: Promise<unknown>): Promise<Error & { status?: number }> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected a rejection');
}
