import { execFile } from 'node:child_process';
import { OperationError } from '../client/errors.js';
import { findExecutable } from '../util/which.js';

/** Renders DOT to SVG with Graphviz's `dot`; without it, an error saying how to get it. */
export async function dotToSvg(dot: string, env: NodeJS.ProcessEnv): Promise<string> {
  const binary = findExecutable('dot', env);
  if (!binary) {
    throw new OperationError("SVG needs Graphviz's dot, which is not on the PATH (Debian: apt-get install graphviz); --format dot writes the DOT source instead");
  }
  return new Promise((resolve, reject) => {
    const child = execFile(binary, ['-Tsvg'], { maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (err) reject(new OperationError(`dot failed: ${stderr.trim() || err.message}`));
      else resolve(stdout);
    });
    child.stdin!.end(dot);
  });
}
