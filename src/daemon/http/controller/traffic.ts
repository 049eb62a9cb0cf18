import type { Router } from 'express';
import type { Labs } from '../../controller/lab.js';
import { linkTraffic } from '../../controller/link-traffic.js';
import type { ProjectManager } from '../../controller/projects.js';
import { route } from '../route.js';
import { PROJECT_ROUTE } from './projects.js';

/** emuctl: every link's counters in one answer (a path beside GNS3's `links/{link_id}` and `nodes/{node_id}`, never under them). */
export const PROJECT_TRAFFIC_ROUTE = `${PROJECT_ROUTE}/traffic`;

/** The controller's project-wide traffic route; a closed project has no started node, hence no counters. */
export function trafficRoutes(router: Router, deps: { projects: ProjectManager; labs: Labs }): void {
  route(router, { method: 'get', template: PROJECT_TRAFFIC_ROUTE }, async ({ params }) => {
    const project = deps.projects.get(params.project_id);
    return project.status === 'opened' ? linkTraffic(deps.labs.of(project)) : [];
  });
}
