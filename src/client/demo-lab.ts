import { readFile } from 'node:fs/promises';
import { OperationError } from './errors.js';
import type { ApiClient } from './api.js';
import { localCaptureSize, startCapture, stopCapture } from './captures.js';
import { createLink, linkName, type Link } from './links.js';
import { consoleAddress, createNode, LOCAL_COMPUTE_ID, nodeAction, type Node } from './nodes.js';
import { PcapStreamParser, type PcapHeader, type PcapRecord } from './pcap-stream.js';
import { createProject, deleteProject, type Project } from './projects.js';
import { connectVpcsConsole, ping, setIp, type PingResult, type VpcsConsole } from './vpcs-console.js';

/** How the demo shows its progress: run `task` as a step, described while it runs and once done. */
export interface StepReporter {
  step<T>(doing: string, task: () => Promise<T>, done: (result: T) => string): Promise<T>;
}

/** The addresses the demo gives its two PCs. */
export const DEMO_HOSTS = [{ name: 'PC1', ip: '10.0.0.1', prefix: 24 }, { name: 'PC2', ip: '10.0.0.2', prefix: 24 }] as const;
export const DEMO_PINGS = 3;

/** What the demo built and saw (`emuctl demo --json`). */
export interface DemoSummary {
  project: { project_id: string; name: string };
  nodes: Array<{ name: string; node_id: string; node_type: string; console: string | null; ip: string | null }>;
  links: Array<{ link_id: string; link: string }>;
  capture: { link_id: string; link: string; capture_file_path: string | null; size: number | null; frames: number | null };
  ping: { from: string; to: string; sent: number; received: number; rtts_ms: number[] };
  ok: boolean;
}

/** The capture's frames, when the file can be read from here (the server is local). */
export interface DemoCapture {
  header: PcapHeader;
  records: PcapRecord[];
}

/** The default project name: `demo-yyyymmdd-hhmmss` in local time. */
export function demoProjectName(now = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `demo-${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
}

/**
 * Builds the classic lab in a new project — switch SW1, VPCS PC1 and PC2 on its ports 0 and 1,
 * started and addressed 10.0.0.1/24 and 10.0.0.2/24 — then pings PC2 from PC1 while PC1's link
 * is captured. A server without VPCS: the half-built project is removed and the server's
 * message (how to install it) is reported. The finished lab is left running to explore.
 */
export async function buildDemoLab(api: ApiClient, projectName: string, report: StepReporter): Promise<{ summary: DemoSummary; capture?: DemoCapture }> {
  const project = await report.step(`Creating project ${projectName}`, () => createProject(api, { name: projectName }),
    (p) => `Created project ${p.name} (${p.project_id})`);
  const pid = project.project_id;
  const consoles: VpcsConsole[] = [];
  try {
    const [sw, pc1, pc2] = await report.step('Creating switch SW1 and VPCS PC1, PC2', () => createNodes(api, project), () => 'Created switch SW1 and VPCS PC1, PC2');
    const links = await report.step('Linking PC1 and PC2 to SW1 ports 0 and 1', async () => [
      await createLink(api, pid, { nodes: [{ node_id: pc1.node_id, adapter_number: 0, port_number: 0 }, { node_id: sw.node_id, adapter_number: 0, port_number: 0 }] }),
      await createLink(api, pid, { nodes: [{ node_id: pc2.node_id, adapter_number: 0, port_number: 0 }, { node_id: sw.node_id, adapter_number: 0, port_number: 1 }] }),
    ], (ls) => `Linked ${ls.map((l) => linkName(l, [sw, pc1, pc2])).join(' and ')}`);
    const nodes = [sw, pc1, pc2];
    const started = await report.step('Starting PC1 and PC2', () => Promise.all([pc1, pc2].map((n) => nodeAction(api, pid, n.node_id, 'start'))),
      (ns) => `Started ${ns.map((n) => `${n.name} (console ${consoleText(n, api.url)})`).join(' and ')}`);
    await report.step(`Setting ${DEMO_HOSTS.map((h) => `${h.name} ${h.ip}/${h.prefix}`).join(', ')} through the consoles`, async () => {
      for (const node of started) {
        const where = consoleAddress(node, api.url);
        if (!where) throw new OperationError(`${node.name} has no console to configure it through`);
        consoles.push(await connectVpcsConsole(where.host, where.port));
      }
      // `ip` takes about 3 s in VPCS (it checks for a duplicate address): both at once.
      await Promise.all(consoles.map((c, i) => setIp(c, `${DEMO_HOSTS[i].ip}/${DEMO_HOSTS[i].prefix}`)));
    }, () => `Set ${DEMO_HOSTS.map((h) => `${h.name} ${h.ip}/${h.prefix}`).join(', ')}`);
    const link = links[0];
    const name = linkName(link, nodes);
    const capturing = await report.step(`Starting a capture on ${name}`, () => startCapture(api, pid, link.link_id),
      (l) => `Capturing on ${name} into ${l.capture_file_path}`);
    const [from, to] = DEMO_HOSTS;
    const result = await report.step(`Pinging ${to.name} (${to.ip}) from ${from.name}, ${DEMO_PINGS} times`, () => ping(consoles[0], to.ip, DEMO_PINGS), pingText);
    await report.step('Stopping the capture', async () => {
      await new Promise((r) => setTimeout(r, 300)); // let the last replies reach the file
      await stopCapture(api, pid, link.link_id);
    }, () => `Stopped the capture on ${name}`);
    const path = capturing.capture_file_path;
    const capture = await readLocalCapture(api.url, path);
    const size = (await localCaptureSize(api.url, path)) ?? null;
    const summary: DemoSummary = {
      project: { project_id: pid, name: project.name },
      nodes: nodes.map((n, i) => ({ name: n.name, node_id: n.node_id, node_type: n.node_type,
        console: i === 0 ? null : consoleText(started[i - 1], api.url), ip: i === 0 ? null : `${DEMO_HOSTS[i - 1].ip}/${DEMO_HOSTS[i - 1].prefix}` })),
      links: links.map((l: Link) => ({ link_id: l.link_id, link: linkName(l, nodes) })),
      capture: { link_id: link.link_id, link: name, capture_file_path: path, size, frames: capture ? capture.records.length : null },
      ping: { from: from.name, to: to.ip, sent: result.sent, received: result.received, rtts_ms: result.rttsMs },
      ok: result.received === DEMO_PINGS,
    };
    return { summary, capture };
  } catch (err) {
    if (err instanceof OperationError && err.status === 409 && /vpcs/i.test(err.message)) {
      await deleteProject(api, pid).catch(() => undefined);
      throw new OperationError(`emuctl demo needs VPCS on the server: ${err.message} (removed the demo project ${project.name})`, 409);
    }
    throw err;
  } finally {
    for (const c of consoles) c.close();
  }
}

async function createNodes(api: ApiClient, project: Project): Promise<[Node, Node, Node]> {
  const sw = await createNode(api, project.project_id, { name: 'SW1', node_type: 'ethernet_switch', compute_id: LOCAL_COMPUTE_ID });
  const pc1 = await createNode(api, project.project_id, { name: 'PC1', node_type: 'vpcs', compute_id: LOCAL_COMPUTE_ID });
  const pc2 = await createNode(api, project.project_id, { name: 'PC2', node_type: 'vpcs', compute_id: LOCAL_COMPUTE_ID });
  return [sw, pc1, pc2];
}

function consoleText(node: Node, serverUrl: string): string {
  const where = consoleAddress(node, serverUrl);
  return where ? `${where.host}:${where.port}` : '-';
}

function pingText(result: PingResult): string {
  const replies = `${result.received}/${DEMO_PINGS} replies`;
  if (!result.rttsMs.length) return `Pinged: ${replies}${result.error ? ` (${result.error})` : ''}`;
  const rtts = result.rttsMs;
  const avg = rtts.reduce((a, b) => a + b, 0) / rtts.length;
  return `Pinged: ${replies}, rtt min/avg/max ${Math.min(...rtts)}/${avg.toFixed(3)}/${Math.max(...rtts)} ms`;
}

/** The capture file's frames when the server is on this machine (its files are ours to read). */
async function readLocalCapture(serverUrl: string, path: string | null): Promise<DemoCapture | undefined> {
  if ((await localCaptureSize(serverUrl, path)) === undefined) return undefined;
  const parser = new PcapStreamParser();
  const records = parser.push(await readFile(path!));
  return parser.header ? { header: parser.header, records } : undefined;
}
