import type { Router } from 'express';
import { pipeline } from 'node:stream/promises';
import type { KindRouteHost } from '../../compute/node-types.js';
import { QemuNode } from './qemu-node.js';
import { createDisk, extendDisk } from './disks.js';
import type { ImageStore } from './images.js';
import type { AccelChooser } from './qemu-accel.js';
import { listQemuBinaries, listQemuImgBinaries, resolveQemuImg } from './qemu-binaries.js';
import { PayloadTooLargeError } from '../../errors.js';
import { quoteName } from '../../file-names.js';
import { EMPTY_SCHEMA } from '../../schemas/project.js';
import { QEMU_BINARY_FILTER_SCHEMA, QEMU_IMAGE_CREATE_SCHEMA, QEMU_IMAGE_UPDATE_SCHEMA, QEMU_RESIZE_SCHEMA } from './schemas.js';
import { abandonableBody, lingerAfterAnswer, declaredLength } from '../../http/request-body.js';
import { route } from '../../http/route.js';
import { nodeTemplates } from '../../http/compute/nodes.js';

export const QEMU_IMAGES_ROUTE = '/v2/compute/qemu/images';
export const QEMU_IMAGE_ROUTE = '/v2/compute/qemu/images/{filename:.+}';

export interface QemuRouteDeps {
  compute: KindRouteHost;
  images: ImageStore;
  /** The daemon's environment, where qemu binaries are looked up. */
  env: NodeJS.ProcessEnv;
  /** The accelerator choice: capabilities report KVM only where VMs really get it. */
  accel: AccelChooser;
}

/** GNS3's QEMU-only compute routes: resume, resize_disk, binaries, capabilities, disk images and image files. */
export function computeQemuRoutes(router: Router, deps: QemuRouteDeps): void {
  const { compute, images, env, accel } = deps;
  const t = nodeTemplates('qemu');
  const vm = (p: Record<string, string>) => compute.project(p.project_id).node('qemu', p.node_id) as unknown as QemuNode;

  route(router, { method: 'post', template: `${t.node}/resume`, body: EMPTY_SCHEMA, status: 204 }, ({ params }) => vm(params).resume());
  route(router, { method: 'post', template: `${t.node}/resize_disk`, body: QEMU_RESIZE_SCHEMA, status: 201 }, async ({ params, body }) => {
    await vm(params).resizeDisk(body.drive_name, body.extend);
    return {};
  });

  route(router, { method: 'get', template: '/v2/compute/qemu/binaries', body: QEMU_BINARY_FILTER_SCHEMA }, ({ body }) => listQemuBinaries(env, body.archs));
  route(router, { method: 'get', template: '/v2/compute/qemu/img-binaries' }, () => listQemuImgBinaries(env));
  route(router, { method: 'get', template: '/v2/compute/qemu/capabilities' }, () => ({ kvm: accel.platforms() }));
  route(router, { method: 'post', template: '/v2/compute/qemu/img', body: QEMU_IMAGE_CREATE_SCHEMA, status: 201 }, async ({ body }) => {
    const { qemu_img, path, ...spec } = body;
    await createDisk(resolveQemuImg(env, qemu_img), images.pathOf(path), spec, env);
    return {};
  });
  route(router, { method: 'put', template: '/v2/compute/qemu/img', body: QEMU_IMAGE_UPDATE_SCHEMA, status: 201 }, async ({ body }) => {
    const path = await images.existing(body.path, 'disk image');
    if (body.extend !== undefined) await extendDisk(resolveQemuImg(env, body.qemu_img), path, body.extend, env);
    return {};
  });

  route(router, { method: 'get', template: QEMU_IMAGES_ROUTE }, () => images.list());
  route(router, { method: 'post', template: QEMU_IMAGE_ROUTE, raw: true }, async ({ params, req, res }) => {
    try {
      const declared = declaredLength(req);
      if (declared !== undefined && declared > images.maxUploadBytes) {
        throw new PayloadTooLargeError(`Image '${quoteName(params.filename)}' is ${declared} bytes, over the upload limit of ${images.maxUploadBytes} bytes (setting max_image_bytes)`);
      }
      await images.upload(params.filename, abandonableBody(req, res));
    } catch (err) {
      lingerAfterAnswer(req, res);
      throw err;
    }
    res.status(204).end(); // GNS3 answers an upload with 204; GET /qemu/images gives its md5.
  });
  route(router, { method: 'get', template: QEMU_IMAGE_ROUTE, raw: true }, async ({ params, res }) => {
    const { stream, size } = await images.open(params.filename);
    res.status(200).setHeader('Content-Type', 'application/octet-stream');
    res.setHeader('Content-Length', size);
    await pipeline(stream, res).catch(() => undefined);
  });
  route(router, { method: 'delete', template: QEMU_IMAGE_ROUTE, status: 204 }, ({ params }) => images.remove(params.filename));
}
