import { Writable } from 'node:stream';
import type Docker from 'dockerode';
import { ConflictError } from '../../errors.js';
import { dockerReason } from './docker-engine.js';

/** What `exec` answers: stdout and stderr interleaved as they came, and the command's exit status. */
export interface ExecResult {
  output: string;
  exit_code: number;
}

/** Output kept per exec; more is dropped and said so at the end. */
const MAX_OUTPUT_BYTES = 4 * 1024 * 1024;
export const DEFAULT_EXEC_TIMEOUT_SECONDS = 30;

/**
 * Runs `command` (argv, no shell) in a running container with Docker's exec API. A command that
 * outlives `timeoutSeconds` is a 409 naming the timeout (Docker cannot end an exec: it may still run).
 */
export async function runExec(container: Docker.Container, command: string[], timeoutSeconds: number): Promise<ExecResult> {
  let exec: Docker.Exec;
  let stream: NodeJS.ReadableStream & { destroy(): void };
  try {
    exec = await container.exec({ Cmd: command, AttachStdout: true, AttachStderr: true, Tty: false });
    stream = (await exec.start({ hijack: true, stdin: false })) as typeof stream;
  } catch (err) {
    throw new ConflictError(`Docker could not run ${command[0]}: ${dockerReason(err)}`);
  }
  const chunks: Buffer[] = [];
  let kept = 0;
  let dropped = 0;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      const room = MAX_OUTPUT_BYTES - kept;
      if (room > 0) chunks.push(chunk.subarray(0, room));
      kept += Math.min(room, chunk.length);
      dropped += Math.max(0, chunk.length - Math.max(room, 0));
      done();
    },
  });
  container.modem.demuxStream(stream, sink, sink);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      stream.destroy();
      reject(new ConflictError(`${command[0]} did not end within the exec timeout of ${timeoutSeconds} s (it may still run in the container)`));
    }, timeoutSeconds * 1000);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    stream.once('end', done);
    stream.once('close', done);
    stream.once('error', done);
  });
  // The stream can end a moment before Docker records the exit status.
  let info = await exec.inspect();
  for (let tries = 0; info.Running && tries < 100; tries++) {
    await new Promise((r) => setTimeout(r, 20));
    info = await exec.inspect();
  }
  const output = Buffer.concat(chunks).toString('utf8') + (dropped ? `\n[emuctl: ${dropped} more bytes of output dropped]\n` : '');
  return { output, exit_code: info.ExitCode ?? -1 };
}
