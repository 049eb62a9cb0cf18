// Route contracts are typed from their schemas (issue 11): a schema made with schema() gives the
// TypeScript type of the bodies it accepts, and route() hands a handler that type. The type checks
// run when this file compiles (an untyped body makes the @ts-expect-error lines fail the build);
// the tests check that the same schemas accept and refuse what the types say at run time.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import express from 'express';
import { route } from '../../../src/daemon/http/route.js';
import { schema, updateSchemaOf, validate, type FromSchema } from '../../../src/daemon/schemas/validation.js';
import { VERSION_SCHEMA } from '../../../src/daemon/schemas/version.js';
import { NIO_UDP_SCHEMA } from '../../../src/daemon/schemas/nio.js';
import { COMPUTE_CREATE_SCHEMA, COMPUTE_UPDATE_SCHEMA } from '../../../src/daemon/schemas/compute.js';
import { LINK_CAPTURE_SCHEMA, LINK_CREATE_SCHEMA, LINK_UPDATE_SCHEMA, NODE_CREATE_SCHEMA, NODE_UPDATE_SCHEMA } from '../../../src/daemon/schemas/lab.js';
import { EMPTY_SCHEMA, PROJECT_CREATE_SCHEMA, PROJECT_UPDATE_SCHEMA } from '../../../src/daemon/schemas/project.js';
import { DRAWING_SCHEMA, NODE_DUPLICATE_SCHEMA, PROJECT_DUPLICATE_SCHEMA } from '../../../src/daemon/schemas/project-extras.js';
import { ETHERNET_HUB_CREATE_SCHEMA } from '../../../src/daemon/kinds/ethernet-hub/schemas.js';
import { ETHERNET_SWITCH_CREATE_SCHEMA, ETHERNET_SWITCH_UPDATE_SCHEMA } from '../../../src/daemon/kinds/ethernet-switch/schemas.js';
import { VPCS_CREATE_SCHEMA } from '../../../src/daemon/kinds/vpcs/schemas.js';
import { QEMU_CREATE_SCHEMA } from '../../../src/daemon/kinds/qemu/schemas.js';
import { computeKind, type ComputeNode } from '../../../src/daemon/compute/node-types.js';
import type { NioJson } from '../../../src/daemon/compute/node-context.js';
import type { NodeCreate } from '../../../src/daemon/controller/nodes.js';
import type { LinkCreate } from '../../../src/daemon/controller/links.js';
import type { ProjectCreate } from '../../../src/daemon/controller/projects.js';
import type { DrawingCreate } from '../../../src/daemon/controller/drawings.js';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
const same = <A, B>(proof: Equal<A, B>) => proof;

describe('typed route contracts', () => {
  it('FromSchema gives required and optional fields, enums, nullable and array types', () => {
    assert.ok(same<FromSchema<typeof VERSION_SCHEMA>, { version: string; local?: boolean }>(true));
    assert.ok(same<FromSchema<typeof NIO_UDP_SCHEMA>['type'], 'nio_udp'>(true));
    assert.ok(same<FromSchema<typeof NIO_UDP_SCHEMA>['filters'], Record<string, unknown[]> | undefined>(true));
    assert.ok(same<FromSchema<typeof NIO_UDP_SCHEMA>['lport'], number>(true));
    assert.ok(same<FromSchema<typeof COMPUTE_CREATE_SCHEMA>['user'], string | null | undefined>(true));
    assert.ok(same<FromSchema<typeof COMPUTE_UPDATE_SCHEMA>['host'], string | undefined>(true), 'an update schema requires nothing');
    const open = schema({ type: 'object', properties: { n: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } } });
    assert.ok(same<FromSchema<typeof open>, { n?: number; tags?: string[]; [extra: string]: unknown }>(true), 'extra properties stay allowed unless additionalProperties is false');
    const partial = updateSchemaOf(schema({ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }));
    assert.equal('required' in partial, false);
  });

  it('route() hands the handler the schema\'s type; validation enforces the same contract', () => {
    const router = express.Router();
    route(router, { method: 'post', template: '/v2/version', body: VERSION_SCHEMA }, ({ body }) => {
      const version: string = body.version;
      // @ts-expect-error a field the schema does not have
      void body.versoin;
      // @ts-expect-error local is a boolean
      const wrong: string = body.local;
      return { version, wrong };
    });
    route<{ anything: number }>(router, { method: 'post', template: '/v2/untyped', body: { type: 'object' } }, ({ body }) => body.anything);
    assert.deepEqual(validate(VERSION_SCHEMA, { version: '2.2.42', local: true }), { version: '2.2.42', local: true });
    assert.throws(() => validate(VERSION_SCHEMA, { version: 2 }), /'version' must be string|version/);
    assert.throws(() => validate(VERSION_SCHEMA, { version: '2.2', extra: 1 }), /additional property 'extra'/);
  });

  it('the controller and compute body types are the ones their schemas give', () => {
    assert.ok(same<NodeCreate, FromSchema<typeof NODE_CREATE_SCHEMA>>(true));
    assert.ok(same<NodeCreate['name'], string>(true));
    assert.ok(same<NodeCreate['console'], number | null | undefined>(true));
    assert.ok(same<NodeCreate['console_type'], 'telnet' | 'vnc' | 'http' | 'https' | 'spice' | 'spice+agent' | 'none' | null | undefined>(true));
    assert.ok(same<NodeCreate['properties'], Record<string, unknown> | undefined>(true));
    assert.ok(same<LinkCreate['nodes'][number], { node_id: string; adapter_number: number; port_number: number; label?: { text: string; style?: string | null; x?: number | null; y?: number; rotation?: number } | null }>(true));
    assert.ok(same<LinkCreate['filters'], Record<string, unknown[]> | undefined>(true));
    assert.ok(same<ProjectCreate['path'], string | null | undefined>(true), 'a null path is allowed, so the manager must take it');
    assert.ok(same<NonNullable<ProjectCreate['variables']>[number], { name: string; value?: string; [extra: string]: unknown }>(true));
    assert.ok(same<DrawingCreate, { drawing_id?: string; project_id?: string; x?: number; y?: number; z?: number; locked?: boolean; rotation?: number; svg?: string }>(true));
    assert.ok(same<FromSchema<typeof PROJECT_DUPLICATE_SCHEMA>['reset_mac_addresses'], boolean | undefined>(true));
    assert.ok(same<FromSchema<typeof PROJECT_DUPLICATE_SCHEMA>['name'], string | undefined>(true));
    assert.ok(same<FromSchema<typeof EMPTY_SCHEMA>, Record<string, unknown>>(true));
    assert.ok(same<NioJson['type'], 'nio_udp' | 'nio_null' | 'nio_tap' | 'nio_ethernet'>(true));
    assert.ok(same<NonNullable<FromSchema<typeof ETHERNET_SWITCH_CREATE_SCHEMA>['ports_mapping']>[number]['type'], 'access' | 'dot1q' | 'qinq'>(true));
    assert.ok(same<FromSchema<typeof ETHERNET_SWITCH_UPDATE_SCHEMA>['name'], string | undefined>(true));
    assert.ok(same<FromSchema<typeof QEMU_CREATE_SCHEMA>['hdb_disk_image'], string | undefined>(true), 'drive fields built in a loop keep their types');
    assert.ok(same<FromSchema<typeof QEMU_CREATE_SCHEMA>['hdb_disk_image_md5sum'], string | null | undefined>(true));
    assert.ok(same<NonNullable<FromSchema<typeof QEMU_CREATE_SCHEMA>['custom_adapters']>[number]['adapter_number'], number>(true));
  });

  it('converted routes hand typed bodies; an untyped schema gives unknown, never any', () => {
    const router = express.Router();
    const t = '/v2/projects/{project_id}/nodes';
    route(router, { method: 'post', template: t, body: NODE_CREATE_SCHEMA }, ({ body }) => {
      // @ts-expect-error x is an integer
      const x: string = body.x;
      // @ts-expect-error no such field (additionalProperties is false)
      void body.nodetype;
      return x;
    });
    route(router, { method: 'put', template: t, body: NODE_UPDATE_SCHEMA }, ({ body }) => {
      // @ts-expect-error name is optional on update
      const name: string = body.name;
      return name;
    });
    route(router, { method: 'post', template: t, body: NODE_DUPLICATE_SCHEMA }, ({ body }) => {
      // @ts-expect-error y is a number
      const y: boolean = body.y;
      return y;
    });
    route(router, { method: 'post', template: t, body: LINK_CREATE_SCHEMA }, ({ body }) => {
      // @ts-expect-error port_number is a number
      const port: string = body.nodes[0].port_number;
      return port;
    });
    route(router, { method: 'put', template: t, body: LINK_UPDATE_SCHEMA }, ({ body }) => {
      // @ts-expect-error suspend is a boolean
      const suspend: number | undefined = body.suspend;
      return suspend;
    });
    route(router, { method: 'post', template: t, body: LINK_CAPTURE_SCHEMA }, ({ body }) => {
      // @ts-expect-error data_link_type is one of the DLT names
      const dlt: 'DLT_RAW' | undefined = body.data_link_type;
      return dlt;
    });
    route(router, { method: 'post', template: t, body: DRAWING_SCHEMA }, ({ body }) => {
      // @ts-expect-error rotation is a number
      const rotation: string | undefined = body.rotation;
      return rotation;
    });
    route(router, { method: 'post', template: t, body: PROJECT_CREATE_SCHEMA }, ({ body }) => {
      // @ts-expect-error auto_start is a boolean
      const autoStart: string | undefined = body.auto_start;
      return autoStart;
    });
    route(router, { method: 'put', template: t, body: PROJECT_UPDATE_SCHEMA }, ({ body }) => {
      // @ts-expect-error the path may be null
      const path: string | undefined = body.path;
      return path;
    });
    route(router, { method: 'post', template: t, body: { type: 'object' } }, ({ body }) => {
      // @ts-expect-error a schema not made with schema() gives an unknown body
      void body.anything;
    });
    const vpcs = computeKind({
      createSchema: VPCS_CREATE_SCHEMA,
      updateSchema: VPCS_CREATE_SCHEMA,
      available: () => true,
      create: async (body) => {
        // @ts-expect-error a VPCS create body's console is a number or null
        const console: string | undefined = body.console;
        throw new Error(`not created: ${console}`);
      },
    });
    const hub = computeKind({
      // @ts-expect-error the create schema and create() must agree on the body
      createSchema: ETHERNET_HUB_CREATE_SCHEMA,
      updateSchema: ETHERNET_HUB_CREATE_SCHEMA,
      available: () => true,
      create: async (body: { ports_mapping: string }) => ({ body }) as unknown as ComputeNode,
    });
    assert.equal(vpcs.createSchema, VPCS_CREATE_SCHEMA);
    assert.equal(hub.createSchema, ETHERNET_HUB_CREATE_SCHEMA);
    assert.equal(validate(NODE_DUPLICATE_SCHEMA, { x: 1, y: 2 }).x, 1);
    assert.throws(() => validate(NODE_DUPLICATE_SCHEMA, { x: 1, y: 'two' }), /'y' must be integer/);
  });
});
