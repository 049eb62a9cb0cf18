#!/usr/bin/env node
// Records the contract of a real GNS3 3.x controller for the v3 client tests:
// the runtime OpenAPI document and a session of real exchanges (method, route,
// request body, status, answer), written to test/fixtures/gns3-v3/.
//
//   node scripts/record-gns3-v3-contract.mjs --url http://127.0.0.1:13080 --user admin --password-env GNS3_PASSWORD \
//     --server-dir DIR --server-code DIR   (paths written as <server-dir> and <gns3-server>)
//
// The server must be a throwaway one (the session creates and deletes projects
// and pools). Tokens are replaced by "<token>" before anything is written.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';

const args = Object.fromEntries(process.argv.slice(2).reduce((pairs, arg, i, all) => (arg.startsWith('--') ? [...pairs, [arg.slice(2), all[i + 1]]] : pairs), []));
const base = (args.url ?? 'http://127.0.0.1:13080').replace(/\/+$/, '');
const user = args.user ?? 'admin';
const password = process.env[args['password-env'] ?? 'GNS3_PASSWORD'];
if (!password) throw new Error('set the password in the environment (--password-env NAME, default GNS3_PASSWORD)');
const out = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'gns3-v3');

const exchanges = [];
let token;
const ids = new Map();
/** Replaces live ids with stable names so the fixture reads well and tests can substitute them. */
const name = (id, label) => {
  if (!ids.has(id)) ids.set(id, `{${label}}`);
};
// The server's own directories are this machine's paths: never in a commit.
const serverDir = args['server-dir'];
const serverCode = args['server-code'];
const redact = (text) => {
  let out = token ? text.split(token).join('<token>') : text;
  if (serverCode) out = out.split(serverCode).join('<gns3-server>');
  if (serverDir) out = out.split(serverDir).join('<server-dir>');
  out = out.replace(/eyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+/g, '<token>');
  return out;
};
const templated = (path) => {
  let out = path;
  for (const [id, label] of ids) out = out.split(id).join(label);
  return out;
};

async function call(label, method, path, { json, form, auth = true, raw = false, query } = {}) {
  const url = new URL(`${base}${path}${query ? `?${new URLSearchParams(query)}` : ''}`);
  const headers = {};
  let body;
  if (json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(json);
  } else if (form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(form).toString();
  } else if (raw) {
    body = raw;
    headers['content-type'] = 'application/octet-stream';
  }
  if (auth && token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(url, { method, headers, body });
  const type = response.headers.get('content-type') ?? '';
  const bytes = Buffer.from(await response.arrayBuffer());
  let answer;
  if (type.includes('json') && bytes.length) answer = JSON.parse(bytes.toString('utf8'));
  else answer = bytes.length ? { bytes: bytes.length, contentType: type, head: bytes.subarray(0, 8).toString('hex') } : null;
  exchanges.push({
    label,
    method,
    path,
    query: query ?? null,
    auth: Boolean(auth && token),
    request: json !== undefined ? json : form !== undefined ? { form: Object.keys(form) } : raw ? { bytes: raw.length } : null,
    status: response.status,
    contentType: type || null,
    response: answer,
    wwwAuthenticate: response.headers.get('www-authenticate'),
  });
  process.stdout.write(`${response.status} ${method} ${path}\n`);
  return { status: response.status, body: answer, bytes };
}

async function websocket(label, path, withToken, collectMs = 0, onOpen = async () => {}) {
  const url = `${base.replace(/^http/, 'ws')}${path}${withToken ? `?token=${token}` : ''}`;
  const socket = new WebSocket(url);
  const messages = [];
  socket.on('message', (data) => messages.push(data.toString()));
  const outcome = await new Promise((resolve) => {
    socket.once('open', () => resolve({ status: 101 }));
    socket.once('unexpected-response', (_req, res) => resolve({ status: res.statusCode }));
    socket.once('error', (err) => resolve({ status: 0, error: err.message }));
    socket.once('close', (code, reason) => resolve({ status: 101, closeCode: code, closeReason: reason.toString() }));
  });
  if (outcome.status === 101) {
    await onOpen();
    await new Promise((r) => setTimeout(r, collectMs));
  }
  const closed = await new Promise((resolve) => {
    if (socket.readyState === WebSocket.CLOSED) return resolve(outcome.closeCode ?? null);
    socket.once('close', (code) => resolve(code));
    socket.close();
    setTimeout(() => resolve(null), 2000);
  });
  exchanges.push({ label, method: 'WEBSOCKET', path, query: withToken ? { token: '<token>' } : null, auth: withToken, status: outcome.status, closeCode: closed, messages: messages.slice(0, 40).map((m) => { try { return JSON.parse(m); } catch { return m; } }) });
  process.stdout.write(`${outcome.status} WS ${path} (${messages.length} messages)\n`);
  return messages;
}

const wait = (ms) => new Promise((r) => setTimeout(r, ms));

const openapi = await (await fetch(`${base}/openapi.json`)).json();
const computeOpenapi = await fetch(`${base}/v3/compute/openapi.json`).then(async (r) => ({ status: r.status, body: r.ok ? await r.json() : await r.text() }));

const version = await call('version', 'GET', '/v3/version', { auth: false });
await call('v2 prefix is gone', 'GET', '/v2/version', { auth: false });
await call('no token', 'GET', '/v3/projects', { auth: false });
await call('bad password', 'POST', '/v3/access/users/authenticate', { json: { username: user, password: `${password}-wrong` } });
const login = await call('authenticate (JSON)', 'POST', '/v3/access/users/authenticate', { json: { username: user, password } });
token = login.body.access_token;
await call('login (form)', 'POST', '/v3/access/users/login', { form: { username: user, password } });
const goodToken = token;
token = `${goodToken.slice(0, -4)}AAAA`;
await call('bad token', 'GET', '/v3/projects');
token = goodToken;
await call('me', 'GET', '/v3/access/users/me');
await call('computes', 'GET', '/v3/computes');
await call('compute local', 'GET', '/v3/computes/local');
await call('templates', 'GET', '/v3/templates');
await call('images', 'GET', '/v3/images');
await call('pools', 'GET', '/v3/pools');
const pool = await call('pool create', 'POST', '/v3/pools', { json: { name: 'contract-pool' } });
name(pool.body.resource_pool_id, 'pool_id');

const project = await call('project create', 'POST', '/v3/projects', { json: { name: 'contract-v3', auto_close: false } });
const p = project.body.project_id;
name(p, 'project_id');
await call('project create again (same name)', 'POST', '/v3/projects', { json: { name: 'contract-v3' } });
await call('project create without name', 'POST', '/v3/projects', { json: {} });
await call('project create with unknown field', 'POST', '/v3/projects', { json: { name: 'x-unknown', bogus: 1 } });
await call('projects', 'GET', '/v3/projects');
await call('project get', 'GET', `/v3/projects/${p}`);
await call('project unknown', 'GET', '/v3/projects/00000000-0000-4000-8000-000000000000');
await call('project update', 'PUT', `/v3/projects/${p}`, { json: { auto_close: false } });

const mk = async (label, body) => {
  const r = await call(label, 'POST', `/v3/projects/${p}/nodes`, { json: body });
  return r.body;
};
const pc1 = await mk('node create vpcs', { name: 'PC1', node_type: 'vpcs', compute_id: 'local' });
name(pc1.node_id, 'pc1_id');
const pc2 = await mk('node create vpcs 2', { name: 'PC2', node_type: 'vpcs', compute_id: 'local' });
name(pc2.node_id, 'pc2_id');
const sw = await mk('node create switch', { name: 'SW1', node_type: 'ethernet_switch', compute_id: 'local' });
name(sw.node_id, 'sw_id');
await mk('node create without compute', { name: 'PC9', node_type: 'vpcs' });
await mk('node create bad type', { name: 'PC9', node_type: 'nonsense', compute_id: 'local' });
await call('nodes', 'GET', `/v3/projects/${p}/nodes`);
await call('node get', 'GET', `/v3/projects/${p}/nodes/${pc1.node_id}`);
await call('node update', 'PUT', `/v3/projects/${p}/nodes/${pc1.node_id}`, { json: { name: 'PC1' } });

const link = async (label, a, ap, b, bp) => {
  const r = await call(label, 'POST', `/v3/projects/${p}/links`, { json: { nodes: [{ node_id: a, adapter_number: 0, port_number: ap }, { node_id: b, adapter_number: 0, port_number: bp }] } });
  return r.body;
};
const l1 = await link('link create', pc1.node_id, 0, sw.node_id, 0);
name(l1.link_id, 'link1_id');
const l2 = await link('link create 2', pc2.node_id, 0, sw.node_id, 1);
name(l2.link_id, 'link2_id');
await link('link create on a used port', pc1.node_id, 0, sw.node_id, 2);
await call('links', 'GET', `/v3/projects/${p}/links`);
await call('link get', 'GET', `/v3/projects/${p}/links/${l1.link_id}`);
await call('link available filters', 'GET', `/v3/projects/${p}/links/${l1.link_id}/available_filters`);
await call('link filters', 'PUT', `/v3/projects/${p}/links/${l1.link_id}`, { json: { filters: { delay: [10, 0] } } });
await call('link filters off', 'PUT', `/v3/projects/${p}/links/${l1.link_id}`, { json: { filters: {} } });
await call('link suspend', 'PUT', `/v3/projects/${p}/links/${l1.link_id}`, { json: { suspend: true } });
await call('link resume', 'PUT', `/v3/projects/${p}/links/${l1.link_id}`, { json: { suspend: false } });
await call('v2 start_capture route', 'POST', `/v3/projects/${p}/links/${l1.link_id}/start_capture`, { json: {} });

await websocket('notifications ws without token', '/v3/notifications/ws', false);
await websocket('project notifications ws', `/v3/projects/${p}/notifications/ws`, true, 4000, async () => {
  await call('nodes start', 'POST', `/v3/projects/${p}/nodes/start`, { json: {} });
});
await call('node stop', 'POST', `/v3/projects/${p}/nodes/${pc2.node_id}/stop`, { json: {} });
await call('node start', 'POST', `/v3/projects/${p}/nodes/${pc2.node_id}/start`, { json: {} });
await call('node suspend (vpcs)', 'POST', `/v3/projects/${p}/nodes/${pc2.node_id}/suspend`, { json: {} });
await call('node reload', 'POST', `/v3/projects/${p}/nodes/${pc2.node_id}/reload`, { json: {} });
await call('nodes after start', 'GET', `/v3/projects/${p}/nodes`);
await websocket('console ws', `/v3/projects/${p}/nodes/${pc1.node_id}/console/ws`, true, 1500);
await websocket('console ws without token', `/v3/projects/${p}/nodes/${pc1.node_id}/console/ws`, false);

await call('capture start', 'POST', `/v3/projects/${p}/links/${l1.link_id}/capture/start`, { json: { data_link_type: 'DLT_EN10MB' } });
await wait(1500);
{
  const controller = new AbortController();
  const response = await fetch(`${base}/v3/projects/${p}/links/${l1.link_id}/capture/stream`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal });
  const reader = response.body.getReader();
  const first = await Promise.race([reader.read(), wait(3000).then(() => ({ value: undefined }))]);
  controller.abort();
  exchanges.push({ label: 'capture stream (bearer)', method: 'GET', path: `/v3/projects/${p}/links/${l1.link_id}/capture/stream`, query: null, auth: true, status: response.status, contentType: response.headers.get('content-type'), response: first.value ? { firstChunkBytes: first.value.length, head: Buffer.from(first.value.subarray(0, 4)).toString('hex') } : null });
  process.stdout.write(`${response.status} GET capture/stream\n`);
}
{
  const response = await fetch(`${base}/v3/projects/${p}/links/${l1.link_id}/capture/stream?token=${token}`, { signal: AbortSignal.timeout(3000) }).catch((e) => ({ status: `error ${e.name}` }));
  exchanges.push({ label: 'capture stream (?token=)', method: 'GET', path: `/v3/projects/${p}/links/${l1.link_id}/capture/stream`, query: { token: '<token>' }, auth: false, status: response.status, contentType: response.headers?.get('content-type') ?? null, response: null });
  process.stdout.write(`${response.status} GET capture/stream?token\n`);
  try { await response.body?.cancel(); } catch { /* aborted */ }
}
await call('capture stop', 'POST', `/v3/projects/${p}/links/${l1.link_id}/capture/stop`, { json: {} });
await call('capture stream when stopped', 'GET', `/v3/projects/${p}/links/${l1.link_id}/capture/stream`);

// A NIO on a free switch port through the compute forward route (seed operation 2).
const udp = await call('forward: allocate udp port', 'POST', `/v3/computes/local/projects/${p}/ports/udp`, { json: {} });
await call('forward: switch nio add', 'POST', `/v3/computes/local/projects/${p}/ethernet_switch/nodes/${sw.node_id}/adapters/0/ports/5/nio`, { json: { type: 'nio_udp', lport: udp.body?.udp_port ?? 41900, rhost: '127.0.0.1', rport: 41901 } });
await call('forward GET', 'GET', `/v3/computes/local/vpcs/nodes/${pc1.node_id}`);
await call('forward PUT', 'PUT', `/v3/computes/local/projects/${p}/ethernet_switch/nodes/${sw.node_id}`, { json: {} });
await call('forward DELETE (no such route)', 'DELETE', `/v3/computes/local/projects/${p}/ethernet_switch/nodes/${sw.node_id}/adapters/0/ports/5/nio`);
await call('compute direct with controller token', 'GET', '/v3/compute/capabilities');
await call('qemu images through forward', 'GET', '/v3/computes/local/qemu/images');
await call('docker images', 'GET', '/v3/computes/local/docker/images');

await call('snapshot create', 'POST', `/v3/projects/${p}/snapshots`, { json: { name: 'snap1' } });
await call('snapshots', 'GET', `/v3/projects/${p}/snapshots`);
await call('locked', 'GET', `/v3/projects/${p}/locked`);
await call('lock', 'POST', `/v3/projects/${p}/lock`);
await call('locked after lock', 'GET', `/v3/projects/${p}/locked`);
await call('node delete while locked', 'DELETE', `/v3/projects/${p}/nodes/${pc2.node_id}`);
await call('unlock', 'POST', `/v3/projects/${p}/unlock`);
await call('pool add project', 'PUT', `/v3/pools/${pool.body.resource_pool_id}/resources/${p}`);
await call('pool resources', 'GET', `/v3/pools/${pool.body.resource_pool_id}/resources`);
await call('pool remove project', 'DELETE', `/v3/pools/${pool.body.resource_pool_id}/resources/${p}`);

await call('nodes stop', 'POST', `/v3/projects/${p}/nodes/stop`, { json: {} });
const zip = await call('export zip', 'GET', `/v3/projects/${p}/export`, { query: { compression: 'zip' } });
const zstd = await call('export default', 'GET', `/v3/projects/${p}/export`);
if (args['save-exports']) {
  writeFileSync(join(args['save-exports'], 'export-zip.gns3project'), zip.bytes);
  writeFileSync(join(args['save-exports'], 'export-zstd.gns3project'), zstd.bytes);
}
const imported = await call('import', 'POST', '/v3/projects/11111111-2222-4333-8444-555555555555/import', { raw: zip.bytes, query: { name: 'contract-v3-imported' } });
name('11111111-2222-4333-8444-555555555555', 'import_id');
await call('link delete', 'DELETE', `/v3/projects/${p}/links/${l2.link_id}`);
await call('node delete', 'DELETE', `/v3/projects/${p}/nodes/${pc2.node_id}`);
await call('project close', 'POST', `/v3/projects/${p}/close`);
await call('nodes of a closed project', 'GET', `/v3/projects/${p}/nodes`);
await call('project open', 'POST', `/v3/projects/${p}/open`);
await call('project close again', 'POST', `/v3/projects/${p}/close`);
await call('project delete', 'DELETE', `/v3/projects/${p}`);
if (imported.body?.project_id) await call('imported project delete', 'DELETE', `/v3/projects/${imported.body.project_id}`);
await call('pool delete', 'DELETE', `/v3/pools/${pool.body.resource_pool_id}`);

mkdirSync(out, { recursive: true });
const recorded = new Date().toISOString();
const meta = { recorded, server: `GNS3 ${version.body.version}`, url: 'a throwaway GNS3 server on loopback', recorder: 'scripts/record-gns3-v3-contract.mjs' };
writeFileSync(join(out, 'openapi.json'), `${redact(JSON.stringify({ 'x-recorded': meta, ...openapi }, null, 1))}\n`);
writeFileSync(join(out, 'compute-openapi.json'), `${JSON.stringify({ 'x-recorded': meta, status: computeOpenapi.status, paths: computeOpenapi.status === 200 ? Object.keys(computeOpenapi.body.paths) : computeOpenapi.body }, null, 1)}\n`);
const text = redact(templated(JSON.stringify({ ...meta, exchanges }, null, 1)));
writeFileSync(join(out, 'session.json'), `${text}\n`);
process.stdout.write(`wrote ${exchanges.length} exchanges to ${out}\n`);
