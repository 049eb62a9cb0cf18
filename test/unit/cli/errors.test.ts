import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CommanderError } from 'commander';
import {
  AmbiguousError, NoMatchError, OperationError, SilentExit, UnreachableError, UsageError, errorLineFor, exitCodeFor,
} from '../../../src/cli/errors.js';

describe('exit-code map', () => {
  it('maps usage → 2, operation → 1, unreachable → 3', () => {
    assert.equal(exitCodeFor(new UsageError('bad flag')), 2);
    assert.equal(exitCodeFor(new OperationError('conflict', 409)), 1);
    assert.equal(exitCodeFor(new NoMatchError('none')), 1);
    assert.equal(exitCodeFor(new AmbiguousError('many')), 1);
    assert.equal(exitCodeFor(new UnreachableError('cannot reach', 'start it')), 3);
  });

  it("maps commander's errors: help and version → 0, anything else → 2", () => {
    assert.equal(exitCodeFor(new CommanderError(0, 'commander.helpDisplayed', '(outputHelp)')), 0);
    assert.equal(exitCodeFor(new CommanderError(0, 'commander.version', '0.1.0')), 0);
    assert.equal(exitCodeFor(new CommanderError(1, 'commander.unknownOption', "error: unknown option '--x'")), 2);
    assert.equal(exitCodeFor(new CommanderError(1, 'commander.missingArgument', 'error: missing')), 2);
  });

  it('maps unexpected errors to 1', () => {
    assert.equal(exitCodeFor(new TypeError('oops')), 1);
    assert.equal(exitCodeFor('a string'), 1);
  });

  it('carries the code of a silent exit and prints nothing for it', () => {
    assert.equal(exitCodeFor(new SilentExit(3)), 3);
    assert.equal(errorLineFor(new SilentExit(3)), undefined);
  });

  it('prints one line: the message, with the hint for unreachable servers', () => {
    assert.equal(errorLineFor(new UnreachableError('cannot reach http://h:1: connection refused', "run 'emuctl daemon start'")),
      "cannot reach http://h:1: connection refused; run 'emuctl daemon start'");
    assert.equal(errorLineFor(new OperationError('Project lab exists', 409)), 'Project lab exists');
    assert.equal(errorLineFor(new Error('boom')), 'unexpected error: boom');
    assert.equal(errorLineFor(new CommanderError(1, 'commander.unknownOption', 'x')), undefined);
  });
});
