import express, { type Express, type Request, Router } from 'express';
import type { ProjectArchives } from '../controller/archives.js';
import type { ComputeEndpoint } from '../controller/compute-http.js';
import type { ComputeRegistry } from '../controller/computes.js';
import type { DrawingManager } from '../controller/drawings.js';
import type { ApplianceCatalog } from '../controller/appliances.js';
import type { GuiSettings } from '../controller/gui-settings.js';
import type { SymbolLibrary } from '../controller/symbols.js';
import type { Labs } from '../controller/lab.js';
import type { LinkManager } from '../controller/links.js';
import type { NodeManager } from '../controller/nodes.js';
import type { ProjectManager } from '../controller/projects.js';
import type { SnapshotManager } from '../controller/snapshots.js';
import type { TemplateManager } from '../controller/templates.js';
import type { LocalCompute } from '../compute/local-compute.js';
import type { ImageStore } from '../compute/qemu/images.js';
import type { Logger } from '../logger.js';
import type { NotificationHub } from '../notifications/hub.js';
import { computeHostRoutes } from './compute/host.js';
import { computeNodeRoutes } from './compute/nodes.js';
import { COMPUTE_FILE_ROUTE, computeProjectRoutes } from './compute/projects.js';
import { computeProjectStatsRoutes } from './compute/project-stats.js';
import { failpointHold } from '../failpoints.js';
import { templatePattern } from './route.js';
import { accessLog } from './middleware/access-log.js';
import { basicAuth } from './middleware/basic-auth.js';
import { requestGuard, type RequestGuardOptions } from './middleware/request-guard.js';
import { securityHeaders } from './middleware/security-headers.js';
import type { LoginBackoff } from './middleware/login-failures.js';
import { errorMapper, notFound } from './middleware/errors.js';
import { jsonBody, type JsonLimits } from './middleware/json-body.js';
import type { StreamSlots } from './streams.js';
import { archiveRoutes, IMPORT_ROUTE } from './controller/archives.js';
import { computeRegistryRoutes, FORWARD_ROUTE } from './controller/computes.js';
import { drawingRoutes } from './controller/drawings.js';
import { guiRoutes } from './controller/gui.js';
import { linkRoutes } from './controller/links.js';
import { nodeRoutes } from './controller/nodes.js';
import { managementRoutes } from './controller/management.js';
import { computeManagementRoutes } from './compute/management.js';
import type { ManagementNetworks } from '../controller/management/networks.js';
import { NODE_FILE_ROUTE, PROJECT_FILE_ROUTE, projectFileRoutes } from './controller/project-files.js';
import { projectRoutes } from './controller/projects.js';
import { snapshotRoutes } from './controller/snapshots.js';
import { templateRoutes } from './controller/templates.js';
import { trafficRoutes } from './controller/traffic.js';
import { versionRoutes } from './controller/version.js';
import { notificationRoutes } from './notifications/routes.js';
import { consoleRoutes } from './console/routes.js';
import { OpenConsoles } from './console/open-consoles.js';
import { webUiRoutes } from './web-ui.js';
import { labPageRoutes } from './lab-page.js';

export interface ControllerDeps {
  projects: ProjectManager;
  computes: ComputeRegistry;
  labs: Labs;
  nodes: NodeManager;
  links: LinkManager;
  templates: TemplateManager;
  drawings: DrawingManager;
  snapshots: SnapshotManager;
  archives: ProjectArchives;
  gui: GuiSettings;
  /** Built-in symbols and the symbols_dir files. */
  symbols: SymbolLibrary;
  /** The appliances_dir files, for GET /v2/appliances. */
  appliances: ApplianceCatalog;
  forwardTimeoutMs: number;
  /** The projects' management networks (emuctl); without it the routes are absent (404). */
  management?: ManagementNetworks;
  /** How the controller reaches its own compute routes, for forwarded calls to `local`. */
  self: () => ComputeEndpoint;
}

export interface ComputeDeps {
  compute: LocalCompute;
  /** GET /v2/compute/capabilities. */
  capabilities: () => Record<string, unknown>;
  images: ImageStore;
  /** The daemon's environment, where emulator binaries are looked up. */
  env: NodeJS.ProcessEnv;
  udpPortRange: [number, number];
  consolePortRange: [number, number];
}

export interface AppDeps {
  log: Logger;
  /** emuctl's own version. */
  version: string;
  /** The GNS3 API version reported to clients and controllers (`2.2.N`). */
  gns3Version: string;
  startedAt: Date;
  /** What a request body may be (bytes, nesting, entries). */
  body: JsonLimits;
  /** Slots for long-lived answers (pcap, notifications), shared by every route that streams. */
  streams: StreamSlots;
  /** Which pages and names may reach the daemon (Origin, Host, CORS); checked before anything else. */
  guard: Omit<RequestGuardOptions, 'credentials'>;
  auth?: { user: string; password: string };
  /** How long an address that sent wrong passwords must wait. */
  loginBackoff: LoginBackoff;
  /** Present when this daemon is a controller. */
  controller?: ControllerDeps;
  /** Present when this daemon is a compute. */
  compute?: ComputeDeps;
  /** The notification streams' clients. */
  notifications: NotificationHub;
  /** The console websockets open now (closed first on shutdown); a fresh set when not given. */
  consoles?: OpenConsoles;
  /** The real path of a GNS3 Web UI directory to serve at /static/web-ui/. */
  webUi?: string;
}

/** Builds the Express app from its dependencies; starts nothing. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  const kinds = deps.compute?.compute.nodeTypes.all() ?? [];
  // Before the guard, so that refusals carry them too.
  app.use(securityHeaders([...USER_FILE_DOWNLOADS, ...kinds.flatMap((k) => k.downloadRoutes ?? [])]));
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(accessLog(deps.log));
  // First: a refused page or name gets no further (no login attempt counted, no body read), and preflights carry no credentials.
  app.use(requestGuard({ ...deps.guard, credentials: !!deps.auth }));
  if (deps.auth) app.use(basicAuth(deps.auth, deps.loginBackoff, deps.log));
  app.use(jsonBody(deps.body, streamedRequests(kinds.flatMap((k) => k.streamedRoutes ?? []))));

  const router = Router({ strict: false });
  versionRoutes(router, deps);
  if (deps.compute) {
    // Tests make a compute slow here (EMUCTL_FAILPOINTS_FILE naming compute.request.hold); a no-op otherwise.
    router.use('/v2/compute', (req, _res, next) => {
      void failpointHold('compute.request.hold', () => deps.log.warn(`failpoint compute.request.hold: holding ${req.method} ${req.originalUrl}`)).then(() => next());
    });
    for (const kind of kinds) kind.routes?.(router, deps.compute.compute);
    computeHostRoutes(router, { ...deps.compute, version: deps.version, gns3Version: deps.gns3Version });
    computeProjectRoutes(router, deps.compute);
    computeProjectStatsRoutes(router, deps.compute);
    computeNodeRoutes(router, { ...deps.compute, streams: deps.streams, log: deps.log });
    computeManagementRoutes(router, deps.compute);
  }
  if (deps.controller) {
    projectRoutes(router, deps.controller);
    computeRegistryRoutes(router, deps.controller);
    nodeRoutes(router, deps.controller);
    linkRoutes(router, { ...deps.controller, streams: deps.streams, log: deps.log });
    trafficRoutes(router, deps.controller);
    templateRoutes(router, deps.controller);
    drawingRoutes(router, deps.controller);
    snapshotRoutes(router, deps.controller);
    projectFileRoutes(router, deps.controller);
    archiveRoutes(router, deps.controller);
    guiRoutes(router, deps.controller);
    if (deps.controller.management) managementRoutes(router, { ...deps.controller, management: deps.controller.management });
  }
  consoleRoutes(router, { log: deps.log, streams: deps.streams, consoles: deps.consoles ?? new OpenConsoles(), controller: deps.controller, compute: deps.compute?.compute });
  if (deps.webUi) webUiRoutes(router, deps.webUi);
  if (deps.controller) labPageRoutes(router);
  notificationRoutes(router, { hub: deps.notifications, log: deps.log, streams: deps.streams, projects: deps.controller?.projects, compute: !!deps.compute });
  app.use(router);
  app.use(notFound(router));
  app.use(errorMapper(deps.log));
  return app;
}

/** Routes that send back a file a client stored: downloaded, never shown as a page. */
const USER_FILE_DOWNLOADS = [PROJECT_FILE_ROUTE, NODE_FILE_ROUTE, COMPUTE_FILE_ROUTE];

const STREAMED = [FORWARD_ROUTE, IMPORT_ROUTE, PROJECT_FILE_ROUTE, NODE_FILE_ROUTE, COMPUTE_FILE_ROUTE];

/** Requests whose body the route reads as a stream (image uploads, forwarded calls, project archives and files), never buffered as JSON. */
function streamedRequests(kindRoutes: string[]): (req: Request) => boolean {
  const patterns = [...STREAMED, ...kindRoutes].map(templatePattern);
  return (req) => (req.method === 'POST' || req.method === 'PUT') && patterns.some((p) => p.test(req.path));
}
