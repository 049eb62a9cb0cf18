import express, { type Express, Router } from 'express';
import type { ProjectArchives } from '../controller/archives.js';
import type { ComputeEndpoint } from '../controller/compute-http.js';
import type { ComputeRegistry } from '../controller/computes.js';
import type { DrawingManager } from '../controller/drawings.js';
import type { GuiSettings } from '../controller/gui-settings.js';
import type { Labs } from '../controller/lab.js';
import type { LinkManager } from '../controller/links.js';
import type { NodeManager } from '../controller/nodes.js';
import type { ProjectManager } from '../controller/projects.js';
import type { SnapshotManager } from '../controller/snapshots.js';
import type { TemplateManager } from '../controller/templates.js';
import type { LocalCompute } from '../compute/local-compute.js';
import type { Logger } from '../logger.js';
import { computeHostRoutes } from './compute/host.js';
import { computeNodeRoutes } from './compute/nodes.js';
import { computeProjectRoutes } from './compute/projects.js';
import { basicAuth } from './middleware/basic-auth.js';
import { errorMapper, notFound } from './middleware/errors.js';
import { jsonBody } from './middleware/json-body.js';
import { archiveRoutes } from './controller/archives.js';
import { computeRegistryRoutes } from './controller/computes.js';
import { drawingRoutes } from './controller/drawings.js';
import { guiRoutes } from './controller/gui.js';
import { linkRoutes } from './controller/links.js';
import { nodeRoutes } from './controller/nodes.js';
import { projectFileRoutes } from './controller/project-files.js';
import { projectRoutes } from './controller/projects.js';
import { snapshotRoutes } from './controller/snapshots.js';
import { templateRoutes } from './controller/templates.js';
import { versionRoutes } from './controller/version.js';

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
  forwardTimeoutMs: number;
  /** How the controller reaches its own compute routes, for forwarded calls to `local`. */
  self: () => ComputeEndpoint;
}

export interface ComputeDeps {
  compute: LocalCompute;
  udpPortRange: [number, number];
  consolePortRange: [number, number];
}

export interface AppDeps {
  log: Logger;
  version: string;
  startedAt: Date;
  maxBodyBytes: number;
  auth?: { user: string; password: string };
  /** Present when this daemon is a controller. */
  controller?: ControllerDeps;
  /** Present when this daemon is a compute. */
  compute?: ComputeDeps;
}

/** Builds the Express app from its dependencies; starts nothing. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  if (deps.auth) app.use(basicAuth(deps.auth));

  const router = Router({ strict: false });
  // Routes whose body is a raw stream (file uploads, project archives): mounted before the JSON body parser.
  const uploads = Router({ strict: false });
  versionRoutes(router, deps);
  if (deps.compute) {
    computeHostRoutes(router, { ...deps.compute, version: deps.version });
    computeProjectRoutes(router, { ...deps.compute, uploads });
    computeNodeRoutes(router, deps.compute);
  }
  if (deps.controller) {
    projectRoutes(router, deps.controller);
    computeRegistryRoutes(router, deps.controller);
    nodeRoutes(router, deps.controller);
    linkRoutes(router, deps.controller);
    templateRoutes(router, deps.controller);
    drawingRoutes(router, deps.controller);
    snapshotRoutes(router, deps.controller);
    projectFileRoutes(router, { ...deps.controller, uploads });
    archiveRoutes(router, { ...deps.controller, uploads });
    guiRoutes(router, deps.controller);
  }
  app.use(uploads);
  app.use(jsonBody(deps.maxBodyBytes));
  app.use(router);
  app.use(notFound(router, uploads));
  app.use(errorMapper(deps.log));
  return app;
}
