// The controller reaches an https compute with verification (issue 17, item 3): the system CAs by
// default, else the compute's own ca_cert or pinned fingerprint (emuctl's fields of the compute
// schema). A real compute-only daemon serves TLS with a CA-signed certificate and basic auth.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { emuctlPaths } from '../../src/config/paths.js';
import { removeHome, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { createProject } from '../helpers/lab.js';
import { makeTestCerts, type TestCerts } from '../helpers/tls-certs.js';

const CONTROLLER_ENV = { EMUCTL_UDP_PORT_RANGE: '21600-21649', EMUCTL_CONSOLE_PORT_RANGE: '21750-21774' };
const COMPUTE_ENV = { EMUCTL_UDP_PORT_RANGE: '21650-21699', EMUCTL_CONSOLE_PORT_RANGE: '21775-21799', EMUCTL_AUTH_PASSWORD: 'compute-secret' };

describe('the controller and an https compute', () => {
  let certs: TestCerts;
  let controller: TestDaemon;
  let compute: TestDaemon;
  let base: Record<string, unknown>;
  const added: string[] = [];

  before(async () => {
    certs = makeTestCerts();
    controller = await startTestDaemon({ env: CONTROLLER_ENV });
    compute = await startTestDaemon({ flags: { role: 'compute', tlsCert: certs.leafCert, tlsKey: certs.leafKey, authUser: 'admin' }, env: COMPUTE_ENV });
    base = { protocol: 'https', host: '127.0.0.1', port: compute.port, user: 'admin', password: 'compute-secret' };
  });
  after(async () => {
    await controller?.stop();
    await compute?.stop();
    if (controller) removeHome(controller.home);
    if (compute) removeHome(compute.home);
    certs?.remove();
  });

  const addCompute = async (fields: Record<string, unknown>) => {
    const r = await controller.api('POST', '/v2/computes', { ...base, ...fields });
    assert.equal(r.status, 201, r.text);
    added.push(r.body.compute_id);
    return r.body;
  };

  it('does not trust the compute by the system CAs alone, and says why', async () => {
    const c = await addCompute({ name: 'untrusted' });
    assert.equal(c.connected, false);
    assert.match(c.last_error, /TLS certificate is not trusted: its certificate is not signed by a trusted CA/);
  });

  it('connects with the compute\'s CA, and creates a VPCS node on it', async () => {
    const c = await addCompute({ name: 'by-ca', ca_cert: readFileSync(certs.caCert, 'utf8') });
    assert.equal(c.connected, true, c.last_error);
    const projectId = await createProject(controller, 'tls-compute');
    const node = await controller.api('POST', `/v2/projects/${projectId}/nodes`, { name: 'PC1', node_type: 'vpcs', compute_id: c.compute_id });
    assert.equal(node.status, 201, node.text);
    const onCompute = await fetchCompute(`/v2/compute/projects/${projectId}/vpcs/nodes/${node.body.node_id}`);
    assert.equal(onCompute.status, 200, onCompute.text);
  });

  it('connects with the pinned fingerprint (plain hex taken too), and shows it', async () => {
    const c = await addCompute({ name: 'by-pin', fingerprint: certs.leafFingerprint.replace(/:/g, '').toLowerCase() });
    assert.equal(c.connected, true, c.last_error);
    assert.equal(c.fingerprint, certs.leafFingerprint);
    assert.equal(c.password, undefined);
  });

  it('refuses a compute whose certificate is not the pinned one, naming both fingerprints', async () => {
    const c = await addCompute({ name: 'wrong-pin', fingerprint: certs.selfFingerprint });
    assert.equal(c.connected, false);
    assert.match(c.last_error, new RegExp(`fingerprint ${certs.leafFingerprint}, not the pinned ${certs.selfFingerprint}`));
    const projectId = await createProject(controller, 'tls-wrong-pin');
    const node = await controller.api('POST', `/v2/projects/${projectId}/nodes`, { name: 'PC1', node_type: 'vpcs', compute_id: c.compute_id });
    // A compute known to be disconnected fails at once (503), with the reason it is.
    assert.equal(node.status, 503, node.text);
    assert.match(node.body.message, /compute 'wrong-pin' \(https:\/\/127\.0\.0\.1:\d+\) is unreachable: its TLS certificate is not trusted: .*not the pinned/);
  });

  it('a PUT of the right fingerprint connects it', async () => {
    const id = added[added.length - 1];
    const r = await controller.api('PUT', `/v2/computes/${id}`, { fingerprint: certs.leafFingerprint });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.connected, true, r.body.last_error);
  });

  it('saves the trust with the computes, in a file readable by its owner only', () => {
    // The test daemon was started with --port 0: its files are named after that.
    const saved = emuctlPaths({ EMUCTL_HOME: controller.home }).computesFile(0);
    assert.equal(statSync(saved).mode & 0o777, 0o600);
    const computes = JSON.parse(readFileSync(saved, 'utf8')) as any[];
    assert.equal(computes.find((c) => c.name === 'by-pin').fingerprint, certs.leafFingerprint);
    assert.match(computes.find((c) => c.name === 'by-ca').ca_cert, /BEGIN CERTIFICATE/);
  });

  it('rejects trust fields that cannot work with 400', async () => {
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ ca_cert: 'not a certificate' }, /ca_cert is not a PEM certificate/],
      [{ fingerprint: 'AB:CD' }, /fingerprint/],
      [{ protocol: 'http', fingerprint: certs.leafFingerprint }, /https computes only/],
      [{ ca_cert: readFileSync(certs.caCert, 'utf8'), fingerprint: certs.leafFingerprint }, /either ca_cert or fingerprint/],
    ];
    for (const [fields, message] of cases) {
      const r = await controller.api('POST', '/v2/computes', { ...base, name: 'bad', ...fields });
      assert.equal(r.status, 400, `${JSON.stringify(fields)}: ${r.text}`);
      assert.match(r.body.message, message);
    }
  });

  /** A GET on the compute itself, trusting its CA, with its credentials. */
  async function fetchCompute(path: string): Promise<{ status: number; text: string }> {
    const { request } = await import('node:https');
    return new Promise((resolve, reject) => {
      const auth = `Basic ${Buffer.from('admin:compute-secret').toString('base64')}`;
      const req = request(compute.url + path, { ca: readFileSync(certs.caCert), agent: false, headers: { authorization: auth } }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      });
      req.once('error', reject);
      req.end();
    });
  }
});
