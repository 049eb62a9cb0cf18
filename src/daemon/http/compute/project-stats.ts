import type { Router } from 'express';
import type { LocalCompute } from '../../compute/local-compute.js';
import { route } from '../route.js';
import { COMPUTE_PROJECT_ROUTE } from './projects.js';

/** emuctl: the port counters of all the project's nodes on this compute, in one answer. */
export const COMPUTE_PROJECT_STATS_ROUTE = `${COMPUTE_PROJECT_ROUTE}/stats`;

/** The compute's project-wide counters route (an emuctl extension; GNS3 2.2 has none). */
export function computeProjectStatsRoutes(router: Router, deps: { compute: LocalCompute }): void {
  route(router, { method: 'get', template: COMPUTE_PROJECT_STATS_ROUTE }, ({ params }) => deps.compute.projectStats(params.project_id));
}
