import type { Router } from 'express';
import { AVAILABLE_FILTERS } from '../../dataplane/filters/catalog.js';
import type { Labs } from '../../controller/lab.js';
import type { LinkManager } from '../../controller/links.js';
import type { ProjectManager } from '../../controller/projects.js';
import { savedLinksJSON } from '../../controller/saved-topology.js';
import type { Logger } from '../../logger.js';
import { route } from '../route.js';
import { sendPcap, type StreamSlots } from '../streams.js';
import { LINK_CAPTURE_SCHEMA, LINK_CREATE_SCHEMA, LINK_UPDATE_SCHEMA } from '../../schemas/lab.js';
import { EMPTY_SCHEMA } from '../../schemas/project.js';

export const LINKS_ROUTE = '/v2/projects/{project_id}/links';
export const LINK_ROUTE = '/v2/projects/{project_id}/links/{link_id}';
export const START_CAPTURE_ROUTE = `${LINK_ROUTE}/start_capture`;

/** Controller link routes (GNS3 v2). */
export function linkRoutes(router: Router, deps: { projects: ProjectManager; labs: Labs; links: LinkManager; streams: StreamSlots; log: Logger }): void {
  const { projects, labs, links, streams, log } = deps;
  const labOf = (projectId: string) => labs.of(projects.getOpened(projectId));

  route(router, { method: 'get', template: LINKS_ROUTE }, ({ params }) => {
    const project = projects.get(params.project_id);
    if (project.status !== 'opened') return savedLinksJSON(project);
    return [...labs.of(project).links.values()].map((l) => l.toJSON());
  });
  route(router, { method: 'post', template: LINKS_ROUTE, body: LINK_CREATE_SCHEMA, status: 201 }, async ({ params, body }) =>
    (await links.create(labOf(params.project_id), body)).toJSON(),
  );
  route(router, { method: 'get', template: LINK_ROUTE }, ({ params }) => labOf(params.project_id).link(params.link_id).toJSON());
  route(router, { method: 'put', template: LINK_ROUTE, body: LINK_UPDATE_SCHEMA, status: 201 }, async ({ params, body }) => {
    const lab = labOf(params.project_id);
    return (await links.update(lab, lab.link(params.link_id), body)).toJSON();
  });
  route(router, { method: 'delete', template: LINK_ROUTE, status: 204 }, async ({ params }) => {
    const lab = labOf(params.project_id);
    await links.remove(lab, lab.link(params.link_id));
  });
  route(router, { method: 'get', template: `${LINK_ROUTE}/available_filters` }, ({ params }) => {
    labOf(params.project_id).link(params.link_id);
    return AVAILABLE_FILTERS;
  });
  route(router, { method: 'post', template: START_CAPTURE_ROUTE, body: LINK_CAPTURE_SCHEMA, status: 201 }, async ({ params, body }) => {
    const lab = labOf(params.project_id);
    return (await links.startCapture(lab, lab.link(params.link_id), body)).toJSON();
  });
  route(router, { method: 'post', template: `${LINK_ROUTE}/stop_capture`, body: EMPTY_SCHEMA, status: 201 }, async ({ params }) => {
    const lab = labOf(params.project_id);
    return (await links.stopCapture(lab, lab.link(params.link_id))).toJSON();
  });
  route(router, { method: 'get', template: `${LINK_ROUTE}/pcap`, raw: true }, ({ params, res }) => {
    const lab = labOf(params.project_id);
    const link = lab.link(params.link_id);
    return sendPcap(res, streams, () => links.pcapStream(lab, link), log);
  });
}
