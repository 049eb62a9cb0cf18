import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { OperationError, UsageError } from '../../cli/errors.js';
import { openLinkPcap } from '../../client/captures.js';
import { copyPcap, downloadPcap } from '../../client/pcap-download.js';
import { ByteProgress, formatBytes } from '../../render/progress.js';
import { projectOption } from '../shared/project.js';
import { LINK_ARGUMENT, resolveCaptureLink } from './shared.js';
import { streamServer, withInterrupt } from '../shared/streams.js';

/** Options of `capture pull`. */
export interface CapturePullOptions {
  link: string;
  /** File to write, `-` for stdout; default: the capture's file name in the current directory. */
  output?: string;
  /** Keep downloading until the capture stops (always so with `-o -`). */
  follow: boolean;
  project?: string;
}

/** Where `-o -` writes (tests give a buffer). */
export interface PullSink {
  stdout: Writable;
}

/** `emuctl capture pull LINK [-o FILE | -o -] [--follow] [-p P]`. */
export function capturePullCommand(f: Factory, run = runCapturePull): Command {
  return new Command('pull')
    .description('download a running capture as a pcap file, or stream it live to stdout with -o -')
    .argument(...LINK_ARGUMENT)
    .option('-o, --output <file>', "file to write, or - for stdout (default: the capture's file name, here)")
    .option('-F, --follow', 'keep downloading until the capture stops or Ctrl-C (default: what was captured so far)')
    .addOption(projectOption())
    .action(async (link: string, flags: { output?: string; follow?: boolean; project?: string }, cmd: Command) =>
      run({ link, output: flags.output, follow: flags.follow === true, project: flags.project }, await f.context(cmd)));
}

/** Downloads the capture (snapshot or --follow) into a file, or streams it live to stdout. */
export async function runCapturePull(opts: CapturePullOptions, ctx: Context, sink: PullSink = { stdout: process.stdout }): Promise<void> {
  if (opts.output === '-' && ctx.out.json) throw new UsageError('--json cannot be combined with -o - (the pcap goes to stdout)');
  const { project, link, name } = await resolveCaptureLink(ctx, opts.project, opts.link);
  if (!link.capturing) {
    throw new OperationError(`${name} is not capturing: start a capture with 'emuctl capture start ${name}' and pull it while it runs`, 409);
  }
  await withInterrupt(async (signal) => {
    const response = await openLinkPcap(streamServer(ctx), project.project_id, link.link_id, signal);
    if (opts.output === '-') {
      const { bytes, end } = await copyPcap(response.body, sink.stdout, signal);
      if (end === 'stopped') ctx.out.note(`the capture on ${name} stopped (${formatBytes(bytes)} streamed)`);
      return;
    }
    const target = resolve(opts.output ?? link.capture_file_name ?? `${link.link_id}.pcap`);
    const progress = new ByteProgress(ctx.out, `Pulling ${name}`);
    let result;
    try {
      result = await downloadPcap(response, target, { follow: opts.follow, signal, onProgress: (bytes, frames) => progress.update(bytes, frames) });
    } finally {
      progress.done();
    }
    ctx.out.result({ link_id: link.link_id, link: name, file: target, bytes: result.bytes, frames: result.frames, capture_stopped: result.captureStopped });
    ctx.out.success(`Saved ${result.frames} frame${result.frames === 1 ? '' : 's'} (${formatBytes(result.bytes)}) from ${name} to ${target}`);
    if (!result.captureStopped && !opts.follow) ctx.out.note('the capture is still running: pull again for more, or use --follow');
  });
}
