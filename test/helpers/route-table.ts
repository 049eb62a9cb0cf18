import { Router } from 'express';
import { templatesOf, type MountedTemplate } from '../../src/daemon/http/route.js';
import { computeHostRoutes } from '../../src/daemon/http/compute/host.js';
import { computeNodeRoutes } from '../../src/daemon/http/compute/nodes.js';
import { computeProjectRoutes } from '../../src/daemon/http/compute/projects.js';
import { computeProjectStatsRoutes } from '../../src/daemon/http/compute/project-stats.js';
import { archiveRoutes } from '../../src/daemon/http/controller/archives.js';
import { computeRegistryRoutes } from '../../src/daemon/http/controller/computes.js';
import { drawingRoutes } from '../../src/daemon/http/controller/drawings.js';
import { guiRoutes } from '../../src/daemon/http/controller/gui.js';
import { linkRoutes } from '../../src/daemon/http/controller/links.js';
import { nodeRoutes } from '../../src/daemon/http/controller/nodes.js';
import { projectFileRoutes } from '../../src/daemon/http/controller/project-files.js';
import { projectRoutes } from '../../src/daemon/http/controller/projects.js';
import { snapshotRoutes } from '../../src/daemon/http/controller/snapshots.js';
import { templateRoutes } from '../../src/daemon/http/controller/templates.js';
import { trafficRoutes } from '../../src/daemon/http/controller/traffic.js';
import { versionRoutes } from '../../src/daemon/http/controller/version.js';
import { notificationRoutes } from '../../src/daemon/http/notifications/routes.js';
import { computeNodeTypes } from '../../src/daemon/kinds/index.js';

/** Dependencies that only have to exist while routes are mounted: every property and call gives another one. */
function inert(): never {
  const target = function () {} as unknown as object;
  return new Proxy(target, { get: (_t, key) => (key === Symbol.iterator || key === 'then' ? undefined : inert()), apply: () => inert() }) as never;
}

/** Every route template the daemon mounts (controller and compute), read from the route modules themselves. */
export function daemonRouteTable(): MountedTemplate[] {
  const router = Router();
  // Kinds read their settings when the daemon builds them: plain values, the rest inert.
  const nodeTypes = computeNodeTypes({ settings: { qemuAccel: 'auto', vpcsUnconfined: false, qemuUnsafeOptions: false, maxImageBytes: 1, imagesDir: 'route-table-images', natSubnet: '192.168.122.0/24', paths: { runDir: 'route-table' } } as never, env: {}, log: inert() });
  const mounts: Array<(r: Router) => void> = [
    (r) => versionRoutes(r, inert()),
    ...nodeTypes.all().map((kind) => (r: Router) => kind.routes?.(r, inert())),
    (r) => computeHostRoutes(r, inert()),
    (r) => computeProjectRoutes(r, inert()),
    (r) => computeProjectStatsRoutes(r, inert()),
    (r) => computeNodeRoutes(r, { compute: { nodeTypes } as never, streams: inert(), log: inert() }),
    (r) => projectRoutes(r, inert()),
    (r) => computeRegistryRoutes(r, inert()),
    (r) => nodeRoutes(r, inert()),
    (r) => linkRoutes(r, inert()),
    (r) => trafficRoutes(r, inert()),
    (r) => templateRoutes(r, inert()),
    (r) => drawingRoutes(r, inert()),
    (r) => snapshotRoutes(r, inert()),
    (r) => projectFileRoutes(r, inert()),
    (r) => archiveRoutes(r, inert()),
    (r) => guiRoutes(r, inert()),
    (r) => notificationRoutes(r, inert()),
  ];
  for (const mount of mounts) mount(router);
  return templatesOf(router);
}
