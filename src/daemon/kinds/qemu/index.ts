import { findExecutables } from '../../../util/which.js';
import { computeKind } from '../../compute/node-types.js';
import { QemuNode, type QemuShared } from './qemu-node.js';
import { ImageStore } from './images.js';
import { AccelChooser } from './qemu-accel.js';
import { checkQemuOptions, relativeImageName } from './qemu-options.js';
import { standardPorts } from '../../controller/node-ports.js';
import type { NodeKind } from '../kind.js';
import { computeQemuRoutes, QEMU_IMAGE_ROUTE } from './routes.js';
import { QEMU_CREATE_SCHEMA, QEMU_UPDATE_SCHEMA } from './schemas.js';
import { QEMU_TEMPLATE } from './template.js';

/** GNS3's QEMU virtual machine: each adapter relayed through a dataplane wire. */
export const QEMU_KIND: NodeKind = {
  type: 'qemu',
  controller: {
    alwaysRunning: false,
    ports: standardPorts,
    emuctlOnlyProperties: ['mgmt_ipv4', 'mgmt_ipv6'],
    computeFields: (node) => (node.layout.custom_adapters?.length ? { custom_adapters: node.layout.custom_adapters } : {}),
    checkProperties: (p, { qemuUnsafeOptions }) => void (!qemuUnsafeOptions && typeof p.options === 'string' && checkQemuOptions(p.options, relativeImageName)),
  },
  template: QEMU_TEMPLATE,
  compute: ({ settings, env, registry, log }) => {
    // The compute's images directory (QEMU disks, kernels): only QEMU reads and serves it.
    const images = new ImageStore(settings.imagesDir, settings.maxImageBytes);
    const shared: QemuShared = { images, accel: new AccelChooser(settings.qemuAccel, log), registry, env, unsafeOptions: settings.qemuUnsafeOptions };
    if (settings.qemuUnsafeOptions) log.warn('qemu_unsafe_options is on: QEMU nodes\' options pass to QEMU unchecked, so anyone who can create or import a node runs what they name (files, plugins, sockets) as this user');
    return computeKind({
      createSchema: QEMU_CREATE_SCHEMA,
      updateSchema: QEMU_UPDATE_SCHEMA,
      create: (body, ctx, opts) => QemuNode.create(body, ctx, shared, opts),
      available: () => findExecutables(/^qemu-system-/, env).length > 0,
      startAnswersNode: true,
      routes: (router, compute) => computeQemuRoutes(router, { compute, images, env, accel: shared.accel }),
      streamedRoutes: [QEMU_IMAGE_ROUTE],
      downloadRoutes: [QEMU_IMAGE_ROUTE],
    });
  },
};
