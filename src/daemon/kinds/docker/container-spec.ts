import type Docker from 'dockerode';
import { WAIT_FOR_INTERFACES } from './container-interfaces.js';
import { hardenedHostConfig } from './containment.js';
import { parseEnvironment, parseExtraHosts, splitCommand, type DockerSettings } from './docker-settings.js';

/** A named volume mounted at `target`, bound to a directory below the node directory. */
export interface VolumeMount {
  volume: string;
  target: string;
}

/** What the container runs: GNS3's rule (start_command, else the image's Cmd, after its Entrypoint; /bin/sh when both are empty). */
export function containerCommand(settings: DockerSettings, image: Docker.ImageInspectInfo): string[] {
  const entrypoint = image.Config?.Entrypoint ?? [];
  const cmd = settings.start_command ? splitCommand(settings.start_command) : (image.Config?.Cmd ?? []);
  const argv = [...(typeof entrypoint === 'string' ? [entrypoint] : entrypoint), ...cmd];
  return argv.length ? argv : ['/bin/sh'];
}

/** A host name Docker takes, from a node name (GNS3 passes the name as it is). */
export function hostnameOf(name: string): string {
  return name.replace(/[^A-Za-z0-9-]/g, '-').replace(/^-+|-+$/g, '').slice(0, 63) || 'docker';
}

/**
 * The container GNS3 2.2 would make, less its privileges: no Docker network (NetworkMode none: the
 * node's interfaces are moved in), the node name as host name, a TTY on the main process for the
 * console, the capabilities of the node's `cap_add` (privileged only when asked and allowed), and
 * containment.ts's hardening whatever they are.
 */
export function containerSpec(o: { name: string; settings: DockerSettings; image: Docker.ImageInspectInfo; labels: Record<string, string>; volumes: VolumeMount[]; mgmtInterface?: string; mgmtRouteOut?: boolean }): Docker.ContainerCreateOptions {
  const { settings } = o;
  const argv = containerCommand(settings, o.image);
  const waits = settings.adapters > 0 || o.mgmtInterface !== undefined;
  return {
    Image: settings.image,
    Hostname: hostnameOf(o.name),
    Entrypoint: waits ? ['/bin/sh', '-c', WAIT_FOR_INTERFACES, 'emuctl-init'] : [argv[0]],
    Cmd: waits ? argv : argv.slice(1),
    Tty: true,
    OpenStdin: true,
    StdinOnce: false,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Env: [
      'container=docker',
      `EMUCTL_ADAPTERS=${settings.adapters}`,
      ...(o.mgmtInterface ? [`EMUCTL_MGMT_INTERFACE=${o.mgmtInterface}`] : []),
      ...(o.mgmtInterface && o.mgmtRouteOut ? ['EMUCTL_MGMT_ROUTE=1'] : []),
      `GNS3_MAX_ETHERNET=eth${Math.max(0, settings.adapters - 1)}`,
      `GNS3_VOLUMES=${settings.extra_volumes.join(':')}`,
      ...parseEnvironment(settings.environment),
    ],
    Labels: o.labels,
    HostConfig: {
      ...hardenedHostConfig(settings),
      ExtraHosts: parseExtraHosts(settings.extra_hosts),
      Mounts: o.volumes.map((v) => ({ Type: 'volume', Source: v.volume, Target: v.target })),
    },
  };
}
