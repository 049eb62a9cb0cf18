import { spawn } from 'node:child_process';
import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { OperationError } from '../../cli/errors.js';
import { openLinkPcap } from '../../client/captures.js';
import { copyPcap } from '../../client/pcap-download.js';
import { findExecutable } from '../../util/which.js';
import { projectOption } from '../shared/project.js';
import { LINK_ARGUMENT, resolveCaptureLink } from './shared.js';
import { streamServer, withInterrupt } from '../shared/streams.js';

/** Options of `capture wireshark`. */
export interface CaptureWiresharkOptions {
  link: string;
  project?: string;
}

/** `emuctl capture wireshark LINK [-p P]`. */
export function captureWiresharkCommand(f: Factory, run = runCaptureWireshark): Command {
  return new Command('wireshark')
    .description('open a running capture live in Wireshark (the stream is piped in, no temporary file)')
    .argument(...LINK_ARGUMENT)
    .addOption(projectOption())
    .action(async (link: string, flags: { project?: string }, cmd: Command) => run({ link, project: flags.project }, await f.context(cmd)));
}

/** Pipes the live capture into `wireshark -k -i -` and waits until Wireshark is closed. */
export async function runCaptureWireshark(opts: CaptureWiresharkOptions, ctx: Context): Promise<void> {
  const wireshark = findExecutable('wireshark', ctx.env);
  const { project, link, name } = await resolveCaptureLink(ctx, opts.project, opts.link);
  if (!wireshark) {
    throw new OperationError(`wireshark is not installed (not on PATH): install it with 'sudo apt-get install wireshark', `
      + `or read the capture with tshark: emuctl capture pull ${name} -o - | tshark -r -`);
  }
  if (!link.capturing) throw new OperationError(`${name} is not capturing: start a capture with 'emuctl capture start ${name}'`, 409);
  await withInterrupt(async (signal) => {
    const response = await openLinkPcap(streamServer(ctx), project.project_id, link.link_id, signal);
    // -k: start capturing at once; -i -: read the pcap from stdin.
    const child = spawn(wireshark, ['-k', '-i', '-'], { env: ctx.env, stdio: ['pipe', 'ignore', 'inherit'] });
    const exited = new Promise<number | null>((resolve, reject) => {
      child.once('error', (err) => reject(new OperationError(`cannot run ${wireshark}: ${err.message}`)));
      child.once('exit', (code) => resolve(code));
    });
    let closed = false;
    const onClose = () => {
      closed = true;
      response.body.destroy();
    };
    void exited.then(onClose, onClose);
    ctx.out.note(`streaming ${name} into Wireshark; close it (or Ctrl-C) to stop`);
    let end = 'closed';
    try {
      ({ end } = await copyPcap(response.body, child.stdin!, signal));
    } catch (err) {
      if (!closed) throw err;
    }
    if (end === 'stopped') ctx.out.note(`the capture on ${name} stopped; Wireshark keeps its frames until you close it`);
    child.stdin!.end();
    const code = await exited;
    if (code !== 0 && code !== null && !signal.aborted) throw new OperationError(`wireshark exited with status ${code}`);
  });
}
