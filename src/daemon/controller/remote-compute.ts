import type { Duplex, Readable } from 'node:stream';
import type { CaptureStart, ComputeApi, ExecCommand, ExecOutcome, Json, NodeAction, PortAddress } from '../compute/compute-api.js';
import type { NioJson } from '../compute/node-context.js';
import type { ProjectFile } from '../compute/project-files.js';
import type { NodePortStats } from '../compute/project-stats.js';
import type { ManagementNetwork } from '../compute/management/types.js';
import { BadGatewayError, UpstreamError } from '../errors.js';
import type { Logger } from '../logger.js';
import { openComputeWebSocket } from './compute-websocket.js';
import { computeLabel, computeRequest, errorMessageOf, type ComputeAnswer, type ComputeEndpoint, type RawBody } from './compute-http.js';

/** A compute reached over HTTP with GNS3's compute API; its errors keep their status and name the compute. */
export class RemoteCompute implements ComputeApi {
  /** `enter` gives the signal for each call, or throws while the compute is known to be unreachable. */
  constructor(private readonly endpoint: () => ComputeEndpoint, private readonly timeoutMs: number, private readonly log?: Logger, private readonly enter: () => AbortSignal | undefined = () => undefined) {}

  /**
   * One call with a JSON answer (and a JSON or `raw` body); a 4xx/5xx from the compute is passed on
   * with its own status and message. `late` gets the answer to a call that timed out, if it comes.
   */
  async call<T = Json>(method: string, path: string, body?: unknown, raw?: RawBody, late?: (answer: ComputeAnswer) => void): Promise<T> {
    const c = this.endpoint();
    const answer = await computeRequest(c, method, path, { body, raw, timeoutMs: this.timeoutMs, late, signal: this.enter() });
    if (answer.status >= 400) throw new UpstreamError(`${computeLabel(c)}: ${errorMessageOf(answer)}`, answer.status);
    if (answer.status === 204 || answer.body.length === 0) return undefined as T;
    try {
      return JSON.parse(answer.body.toString('utf8')) as T;
    } catch {
      throw new BadGatewayError(`${computeLabel(c)} answered ${method} ${path} with something that is not JSON`);
    }
  }

  createProject(body: { project_id: string; name?: string }): Promise<Json> {
    return this.call('POST', '/v2/compute/projects', body);
  }
  async closeProject(projectId: string): Promise<void> {
    await this.call('POST', `/v2/compute/projects/${projectId}/close`, {});
  }
  /** An emuctl extension: a GNS3 compute answers 404. */
  async setManagement(projectId: string, network: ManagementNetwork | null): Promise<void> {
    if (network) await this.call('PUT', `/v2/compute/projects/${projectId}/management`, network);
    else await this.call('DELETE', `/v2/compute/projects/${projectId}/management`);
  }
  async deleteProject(projectId: string): Promise<void> {
    await this.call('DELETE', `/v2/compute/projects/${projectId}`);
  }
  async allocateUdpPort(projectId: string): Promise<number> {
    return (await this.call<{ udp_port: number }>('POST', `/v2/compute/projects/${projectId}/ports/udp`, {})).udp_port;
  }
  /** An emuctl extension: GNS3 2.2 has no such route and frees the port when the project closes. */
  async releaseUdpPort(projectId: string, port: number): Promise<void> {
    await this.call('DELETE', `/v2/compute/projects/${projectId}/ports/udp/${port}`);
  }
  /** A node the compute creates after the call timed out is deleted there: the controller has given it up. */
  createNode(projectId: string, nodeType: string, body: Json): Promise<Json> {
    return this.call('POST', `/v2/compute/projects/${projectId}/${nodeType}/nodes`, body, undefined, (answer) => {
      if (answer.status >= 300) return;
      const nodeId = String(body.node_id);
      const label = computeLabel(this.endpoint());
      this.deleteNode(projectId, nodeType, nodeId).then(
        () => this.log?.warn(`removed node ${nodeId} from ${label}: it was created after the controller gave up on the call`),
        (err: Error) => this.log?.error(`could not remove node ${nodeId} from ${label}, created after the controller gave up on the call: ${err.message}`),
      );
    });
  }
  getNode(projectId: string, nodeType: string, nodeId: string): Promise<Json> {
    return this.call('GET', `/v2/compute/projects/${projectId}/${nodeType}/nodes/${nodeId}`);
  }
  updateNode(projectId: string, nodeType: string, nodeId: string, body: Json): Promise<Json> {
    return this.call('PUT', `/v2/compute/projects/${projectId}/${nodeType}/nodes/${nodeId}`, body);
  }
  async deleteNode(projectId: string, nodeType: string, nodeId: string): Promise<void> {
    await this.call('DELETE', `/v2/compute/projects/${projectId}/${nodeType}/nodes/${nodeId}`);
  }
  async nodeAction(projectId: string, nodeType: string, nodeId: string, action: NodeAction): Promise<void> {
    await this.call('POST', `/v2/compute/projects/${projectId}/${nodeType}/nodes/${nodeId}/${action}`, {});
  }
  async duplicateNode(projectId: string, nodeType: string, nodeId: string, destinationNodeId: string): Promise<void> {
    await this.call('POST', `/v2/compute/projects/${projectId}/${nodeType}/nodes/${nodeId}/duplicate`, { destination_node_id: destinationNodeId });
  }
  listFiles(projectId: string): Promise<ProjectFile[]> {
    return this.call('GET', `/v2/compute/projects/${projectId}/files`);
  }
  readFile(projectId: string, path: string): Promise<Readable> {
    return this.stream(`/v2/compute/projects/${projectId}/files/${filePath(path)}`);
  }
  async writeFile(projectId: string, path: string, data: Readable): Promise<void> {
    await this.call('POST', `/v2/compute/projects/${projectId}/files/${filePath(path)}`, undefined, { stream: data, contentType: 'application/octet-stream' });
  }
  addNio(at: PortAddress, nio: NioJson): Promise<NioJson> {
    return this.call('POST', `${portPath(at)}/nio`, nio);
  }
  updateNio(at: PortAddress, change: { filters?: Record<string, unknown[]>; suspend?: boolean }): Promise<NioJson> {
    return this.call('PUT', `${portPath(at)}/nio`, change);
  }
  async removeNio(at: PortAddress): Promise<void> {
    await this.call('DELETE', `${portPath(at)}/nio`);
  }
  startCapture(at: PortAddress, body: CaptureStart): Promise<{ pcap_file_path: string }> {
    return this.call('POST', `${portPath(at)}/start_capture`, body);
  }
  async stopCapture(at: PortAddress): Promise<void> {
    await this.call('POST', `${portPath(at)}/stop_capture`, {});
  }
  projectStats(projectId: string): Promise<NodePortStats[]> {
    return this.call('GET', `/v2/compute/projects/${projectId}/stats`);
  }
  /** emuctl's exec route; the call may take the command's own timeout, beyond the compute timeout. */
  async execInNode(projectId: string, nodeType: string, nodeId: string, command: ExecCommand): Promise<ExecOutcome> {
    const c = this.endpoint();
    const timeoutMs = Math.max(this.timeoutMs, ((command.timeout ?? 30) + 10) * 1000);
    const answer = await computeRequest(c, 'POST', `/v2/compute/projects/${projectId}/${nodeType}/nodes/${nodeId}/exec`, { body: command, timeoutMs, signal: this.enter() });
    if (answer.status >= 400) throw new UpstreamError(`${computeLabel(c)}: ${errorMessageOf(answer)}`, answer.status);
    return JSON.parse(answer.body.toString('utf8')) as ExecOutcome;
  }

  /** GNS3's controller relays the web console through the compute's own console websocket. */
  openConsole(projectId: string, nodeType: string, nodeId: string): Promise<Duplex> {
    return openComputeWebSocket(this.endpoint(), `/v2/compute/projects/${projectId}/${nodeType}/nodes/${nodeId}/console/ws`, this.timeoutMs);
  }
  async resetConsole(projectId: string, nodeType: string, nodeId: string): Promise<void> {
    await this.call('POST', `/v2/compute/projects/${projectId}/${nodeType}/nodes/${nodeId}/console/reset`, {});
  }
  pcapStream(at: PortAddress): Promise<Readable> {
    return this.stream(`${portPath(at)}/pcap`);
  }

  /** A GET whose answer is a byte stream; an error answer keeps the compute's status and message. */
  private async stream(path: string): Promise<Readable> {
    const c = this.endpoint();
    const res = await computeRequest(c, 'GET', path, { timeoutMs: this.timeoutMs, stream: true, signal: this.enter() });
    if ((res.statusCode ?? 500) >= 400) {
      const chunks: Buffer[] = [];
      for await (const chunk of res) chunks.push(chunk as Buffer);
      throw new UpstreamError(`${computeLabel(c)}: ${errorMessageOf({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) })}`, res.statusCode!);
    }
    return res;
  }
}

/** A project file path as URL segments. */
function filePath(path: string): string {
  return path.split('/').map(encodeURIComponent).join('/');
}

function portPath(at: PortAddress): string {
  return `/v2/compute/projects/${at.projectId}/${at.nodeType}/nodes/${at.nodeId}/adapters/${at.adapter}/ports/${at.port}`;
}
