import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AmbiguousError, NoMatchError, exitCodeFor } from '../../../src/cli/errors.js';
import { PROJECT_KIND, type Project } from '../../../src/client/projects.js';
import { resolveOne } from '../../../src/client/resolve.js';

const project = (name: string, project_id: string): Project => ({ name, project_id, status: 'opened' });
const lab1 = project('lab1', 'a1b2c3d4-0000-4000-8000-000000000001');
const lab2 = project('lab2', 'a1b2ffff-0000-4000-8000-000000000002');
const dead = project('dead', 'deadbeef-0000-4000-8000-000000000003');
const beef = project('beef-lab', '0badbeef-0000-4000-8000-000000000004');
const projects = [lab1, lab2, dead, beef];

describe('resolveOne (name, UUID, unique UUID prefix)', () => {
  it('finds by exact name', () => {
    assert.equal(resolveOne(projects, 'lab2', PROJECT_KIND), lab2);
  });

  it('finds by full UUID, case-insensitively', () => {
    assert.equal(resolveOne(projects, lab1.project_id.toUpperCase(), PROJECT_KIND), lab1);
  });

  it('finds by a unique UUID prefix of 4 or more characters', () => {
    assert.equal(resolveOne(projects, 'a1b2c', PROJECT_KIND), lab1);
    assert.equal(resolveOne(projects, '0bad', PROJECT_KIND), beef);
  });

  it('prefers an exact name over a UUID prefix', () => {
    const named = project('cafe', '11111111-0000-4000-8000-000000000001');
    const prefixed = project('other', 'cafe0000-0000-4000-8000-000000000002');
    assert.equal(resolveOne([named, prefixed], 'cafe', PROJECT_KIND), named);
    assert.equal(resolveOne([named, prefixed], 'cafe0', PROJECT_KIND), prefixed);
  });

  it('does not take prefixes shorter than 4 characters', () => {
    assert.throws(() => resolveOne(projects, 'a1b', PROJECT_KIND), NoMatchError);
  });

  it('reports an ambiguous prefix with the candidates', () => {
    const err = captureError(() => resolveOne(projects, 'a1b2', PROJECT_KIND));
    assert.ok(err instanceof AmbiguousError);
    assert.match(err.message, /"a1b2" matches several projects/);
    assert.match(err.message, /lab1 \(a1b2c3d4-/);
    assert.match(err.message, /lab2 \(a1b2ffff-/);
    assert.equal(exitCodeFor(err), 1);
  });

  it('reports duplicate names as ambiguous', () => {
    const twin = project('lab1', 'cccccccc-0000-4000-8000-000000000005');
    const err = captureError(() => resolveOne([...projects, twin], 'lab1', PROJECT_KIND));
    assert.ok(err instanceof AmbiguousError);
    assert.match(err.message, /project name "lab1" is ambiguous/);
  });

  it('reports no match with the known objects', () => {
    const err = captureError(() => resolveOne(projects, 'nope', PROJECT_KIND));
    assert.ok(err instanceof NoMatchError);
    assert.match(err.message, /no project matches "nope"; known: lab1 \(a1b2c3d4-.*\), lab2/);
  });

  it('says so when there is nothing at all', () => {
    assert.throws(() => resolveOne([], 'x', PROJECT_KIND), /there are no projects/);
  });

  it('lists at most 10 candidates', () => {
    const many = Array.from({ length: 14 }, (_, i) => project(`p${i}`, `${String(i).padStart(8, '0')}-0000-4000-8000-000000000000`));
    const err = captureError(() => resolveOne(many, 'zzz', PROJECT_KIND));
    assert.match(err.message, /and 4 more$/);
  });
});

function captureError(fn: () => unknown): Error {
  try {
    fn();
  } catch (err) {
    return err as Error;
  }
  throw new Error('expected an error');
}
