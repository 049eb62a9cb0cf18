import { NotInApiError } from './api-version.js';

/**
 * GNS3 3.x renamed a few of GNS3 2.2's controller routes and dropped the direct compute API for
 * controller clients (it wants the compute's own credentials). The CLI's resource modules speak
 * v2 paths (relative, `projects/{id}/…`); this is the one place that turns one into its v3 path,
 * or says in one line that v3 has none. Facts from the recorded GNS3 3.0.6 contract
 * (test/fixtures/gns3-v3/).
 */
export function v3Path(method: string, path: string): string {
  const [route, query = ''] = splitQuery(path);
  const segments = route.split('/');
  const renamed = renameSegments(method.toUpperCase(), segments);
  let mapped = renamed.join('/');
  let params = new URLSearchParams(query);
  // 3.x compresses archives with zstd by default, which 2.2 and emuctl cannot import: ask for zip.
  if (method.toUpperCase() === 'GET' && segments.length === 3 && segments[0] === 'projects' && segments[2] === 'export' && !params.has('compression')) {
    params.set('compression', 'zip');
  }
  const text = params.toString();
  return text ? `${mapped}?${text}` : mapped;
}

function splitQuery(path: string): [string, string?] {
  const at = path.indexOf('?');
  return at < 0 ? [path] : [path.slice(0, at), path.slice(at + 1)];
}

function renameSegments(method: string, s: string[]): string[] {
  // projects/{p}/links/{l}/start_capture | stop_capture | pcap → capture/start | capture/stop | capture/stream
  if (s.length === 5 && s[0] === 'projects' && s[2] === 'links') {
    const capture: Record<string, string> = { start_capture: 'start', stop_capture: 'stop', pcap: 'stream' };
    if (capture[s[4]]) return [...s.slice(0, 4), 'capture', capture[s[4]]];
  }
  // projects/{p}/nodes/{n}/resize_disk has a body naming the disk; v3 puts the disk in the path.
  if (s.length === 5 && s[0] === 'projects' && s[2] === 'nodes' && s[4] === 'resize_disk') {
    throw new NotInApiError('resizing a disk is PUT …/qemu/disk_image/{disk_name} on GNS3 3.x, which this command does not send');
  }
  // The direct compute API (compute/…) needs the compute's own credentials on 3.x: go through the
  // controller's forward route to its local compute, which carries GET, POST and PUT only.
  if (s[0] === 'compute') {
    if (method === 'DELETE') {
      throw new NotInApiError(`GNS3 3.x has no ${method} through its compute forward route (/v3/computes/{compute_id}/…); remove the link instead`);
    }
    return ['computes', 'local', ...s.slice(1)];
  }
  if (s[0] === 'computes' && s.length > 2 && method === 'DELETE') {
    throw new NotInApiError(`GNS3 3.x has no ${method} through its compute forward route (/v3/computes/{compute_id}/…)`);
  }
  // Image uploads go to the controller's image database on 3.x.
  if (method === 'POST' && s[0] === 'computes' && s[2] === 'qemu' && s[3] === 'images' && s.length > 4) {
    return ['images', 'upload', ...s.slice(4)];
  }
  if (method === 'POST' && s[0] === 'computes' && s[2] === 'docker' && s[3] === 'images') {
    throw new NotInApiError('GNS3 3.x cannot load docker images through its API; run docker load on the compute');
  }
  return s;
}
