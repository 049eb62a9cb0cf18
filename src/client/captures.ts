import { stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { isLoopbackUrl } from './active-profile.js';
import { apiPath, type ApiClient, type StreamServer } from './api.js';
import { streamedRequest } from './streamed-http.js';
import type { Link } from './links.js';
import { isPlainCaptureFileName } from '../util/capture-file-name.js';
import type { DataLinkType } from '../util/data-link-types.js';

export { DATA_LINK_TYPES, type DataLinkType } from '../util/data-link-types.js';


/**
 * Why `name` cannot be a capture file name, or undefined when it can: a file name in the
 * project's captures directory, never a path. emuctl refuses paths (400), GNS3 2.2 writes
 * them where they point, so the CLI checks before sending anything.
 */
export function captureFileNameProblem(name: string): string | undefined {
  if (isPlainCaptureFileName(name)) return undefined;
  if (name === '' || name === '.') return 'a capture file name cannot be empty or "."';
  return `"${name.replace(/\0/g, '\\0')}" is a path: a capture file name has no "/", "\\", ".." or NUL (it is written in the project's captures directory)`;
}

/** Body of POST /v2/projects/{project_id}/links/{link_id}/start_capture. */
export interface CaptureStart {
  capture_file_name?: string;
  data_link_type?: DataLinkType;
}

/** POST .../links/{link_id}/start_capture: starts (or restarts, into a fresh file) a capture; resolves with the link. */
export function startCapture(api: ApiClient, projectId: string, linkId: string, body: CaptureStart = {}): Promise<Link> {
  return api.post<Link>(apiPath('projects', projectId, 'links', linkId, 'start_capture'), body);
}

/** POST .../links/{link_id}/stop_capture; resolves with the link (GNS3 3.x answers 204 with no body: then it is fetched). */
export async function stopCapture(api: ApiClient, projectId: string, linkId: string): Promise<Link> {
  const answer = await api.post<Link | ''>(apiPath('projects', projectId, 'links', linkId, 'stop_capture'));
  return answer || api.get<Link>(apiPath('projects', projectId, 'links', linkId));
}

/**
 * The size of a capture file, when the server runs on this machine and the file is there
 * (a remote server's files cannot be seen; the API has no size); undefined otherwise.
 */
export async function localCaptureSize(serverUrl: string, path: string | null): Promise<number | undefined> {
  if (!path || !isLoopbackUrl(serverUrl)) return undefined;
  try {
    return (await stat(path)).size;
  } catch {
    return undefined;
  }
}

/** Where the live pcap of a link is, and how to authenticate. */
export type PcapServer = StreamServer;

/** The pcap response: a byte stream, and when the server says it answered (its Date header). */
export interface PcapResponse {
  body: IncomingMessage;
  /** The server's clock when it answered (whole seconds), if it sent a Date header. */
  serverDate?: Date;
}

/**
 * GET .../links/{link_id}/pcap: the capture file from its first byte, followed while it grows,
 * ending when the capture stops. Node's http rather than the got client: the body is a stream
 * with no read timeout, and the caller may abort it at any time (`signal`).
 * A refusal (409 not capturing, 404) is an OperationError with the server's message.
 */
export async function openLinkPcap(server: PcapServer, projectId: string, linkId: string, signal?: AbortSignal): Promise<PcapResponse> {
  const response = await streamedRequest(server, 'GET', apiPath('projects', projectId, 'links', linkId, 'pcap'), { signal });
  const date = response.headers.date ? new Date(response.headers.date) : undefined;
  return { body: response, serverDate: date && !Number.isNaN(date.getTime()) ? date : undefined };
}
