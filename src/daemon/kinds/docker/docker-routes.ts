import type { Router } from 'express';
import type { KindRouteHost } from '../../compute/node-types.js';
import { PayloadTooLargeError } from '../../errors.js';
import { nodeTemplates } from '../../http/compute/nodes.js';
import { abandonableBody, declaredLength, lingerAfterAnswer } from '../../http/request-body.js';
import { sendJson } from '../../http/json-response.js';
import { route } from '../../http/route.js';
import { EMPTY_SCHEMA } from '../../schemas/project.js';
import type { DockerEngine } from './docker-engine.js';
import { loadImages, listImages } from './docker-images.js';
import type { DockerNode } from './docker-node.js';
import { EXEC_SCHEMA } from '../../schemas/nodes.js';

/** GNS3's docker images route; emuctl also loads an archive with POST (a raw `docker save` tar body). */
export const DOCKER_IMAGES_ROUTE = '/v2/compute/docker/images';

/** The docker kind's own compute routes: pause/unpause, images, and emuctl's exec. */
export function dockerRoutes(router: Router, compute: KindRouteHost, engine: DockerEngine, maxImageBytes: number): void {
  const t = nodeTemplates('docker');
  const nodeOf = (p: Record<string, string>) => compute.project(p.project_id).node('docker', p.node_id) as unknown as DockerNode;

  route(router, { method: 'post', template: `${t.node}/pause`, body: EMPTY_SCHEMA, status: 204 }, ({ params }) => nodeOf(params).suspend());
  route(router, { method: 'post', template: `${t.node}/unpause`, body: EMPTY_SCHEMA, status: 204 }, ({ params }) => nodeOf(params).resume());
  route(router, { method: 'post', template: `${t.node}/exec`, body: EXEC_SCHEMA }, ({ params, body }) => compute.execInNode(params.project_id, 'docker', params.node_id, body));

  route(router, { method: 'get', template: DOCKER_IMAGES_ROUTE }, async () => {
    await engine.ready();
    return listImages(engine.docker);
  });
  route(router, { method: 'post', template: DOCKER_IMAGES_ROUTE, raw: true }, async ({ req, res }) => {
    let loaded;
    try {
      const declared = declaredLength(req);
      if (declared !== undefined && declared > maxImageBytes) throw new PayloadTooLargeError(`the image archive is ${declared} bytes, over the upload limit of ${maxImageBytes} bytes (setting max_image_bytes)`);
      await engine.ready();
      loaded = await loadImages(engine.docker, abandonableBody(req, res), maxImageBytes);
    } catch (err) {
      lingerAfterAnswer(req, res);
      throw err;
    }
    sendJson(res, 201, loaded);
  });
}
