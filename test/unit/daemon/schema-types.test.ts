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
});
