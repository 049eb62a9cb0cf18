// Golden files of generated labs: fixtures under test/fixtures/generated/. UPDATE_GOLDEN=1
// rewrites them (then read the diff before committing).
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { LabFileError } from '../../../../src/lab/locate.js';
import { parseLab } from '../../../../src/lab/parse.js';
import type { LabSpec } from '../../../../src/lab/model.js';

export const fixture = (name: string) => fileURLToPath(new URL(`../../../../../test/fixtures/generated/${name}`, import.meta.url));

/** A fixture lab, parsed with an empty environment (default images). */
export function fixtureLab(name: string): LabSpec {
  return parseLab(readFileSync(fixture(`${name}.yml`), 'utf8'), `${name}.yml`, {});
}

/** `actual` equals the golden file `name`, byte for byte. */
export function assertGolden(name: string, actual: string): void {
  if (process.env.UPDATE_GOLDEN) writeFileSync(fixture(name), actual);
  assert.equal(actual, readFileSync(fixture(name), 'utf8'), `${name} differs from its golden file (UPDATE_GOLDEN=1 rewrites it)`);
}

/** The one-line LabFileError a lab text is refused with (fails when it is accepted). */
export function refusal(text: string): string {
  try {
    parseLab(text, 'lab.yml', {});
  } catch (err) {
    assert.ok(err instanceof LabFileError, String(err));
    assert.doesNotMatch(err.message, /\n/);
    return err.message;
  }
  assert.fail('the lab was accepted');
}
