import express, { type Express, Router } from 'express';
import type { ComputeRegistry } from '../controller/computes.js';
import type { ProjectManager } from '../controller/projects.js';
import type { Logger } from '../logger.js';
import { basicAuth } from './middleware/basic-auth.js';
import { errorMapper, notFound } from './middleware/errors.js';
import { jsonBody } from './middleware/json-body.js';
import { computeRegistryRoutes } from './controller/computes.js';
import { projectRoutes } from './controller/projects.js';
import { versionRoutes } from './controller/version.js';

export interface ControllerDeps {
  projects: ProjectManager;
  computes: ComputeRegistry;
}

export interface AppDeps {
  log: Logger;
  version: string;
  startedAt: Date;
  maxBodyBytes: number;
  auth?: { user: string; password: string };
  /** Present when this daemon is a controller. */
  controller?: ControllerDeps;
  /** Mounts the compute routes when this daemon is a compute. */
  mountCompute?: (router: Router) => void;
}

/** Builds the Express app from its dependencies; starts nothing. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  if (deps.auth) app.use(basicAuth(deps.auth));
  app.use(jsonBody(deps.maxBodyBytes));

  const router = Router({ strict: false });
  versionRoutes(router, deps);
  deps.mountCompute?.(router);
  if (deps.controller) {
    projectRoutes(router, deps.controller);
    computeRegistryRoutes(router, deps.controller);
  }
  app.use(router);
  app.use(notFound(router));
  app.use(errorMapper(deps.log));
  return app;
}
