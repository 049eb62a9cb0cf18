import { Command, InvalidArgumentError, Option } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { captureFileNameProblem, startCapture, stopCapture, type DataLinkType } from '../../client/captures.js';
import { parseSeconds } from '../shared/options.js';
import { projectOption } from '../shared/project.js';
import { captureRecord, LINK_ARGUMENT, parseDataLinkType, resolveCaptureLink, sleepUnlessInterrupted } from './shared.js';

/** Options of `capture start`. */
export interface CaptureStartOptions {
  link: string;
  /** Capture file name (a plain name in the project's captures directory); the server's default when absent. */
  file?: string;
  dlt?: DataLinkType;
  /** Stop the capture again after this many seconds. */
  duration?: number;
  project?: string;
}

/** `emuctl capture start LINK [--file NAME] [--dlt DLT] [--duration S] [-p P]`. */
export function captureStartCommand(f: Factory, run = runCaptureStart): Command {
  return new Command('start')
    .description('start capturing the frames crossing a link into a pcap file (a running capture restarts into a fresh file)')
    .argument(...LINK_ARGUMENT)
    .addOption(new Option('-f, --file <name>', 'capture file name in the project\'s captures directory, not a path (default: <node1>_<a>-<p>_to_<node2>_<a>-<p>.pcap)').argParser(parseCaptureFileName))
    .addOption(new Option('--dlt <type>', 'data link type: DLT_EN10MB (default), DLT_PPP_SERIAL, DLT_C_HDLC, DLT_FRELAY or DLT_ATM_RFC1483').argParser(parseDataLinkType))
    .option('-d, --duration <seconds>', 'capture for this long, then stop and print the file', parseSeconds)
    .addOption(projectOption())
    .action(async (link: string, flags: { file?: string; dlt?: DataLinkType; duration?: number; project?: string }, cmd: Command) =>
      run({ link, file: flags.file, dlt: flags.dlt, duration: flags.duration, project: flags.project }, await f.context(cmd)));
}

/** A capture file name for commander: a path is a usage error, before anything is sent. */
function parseCaptureFileName(value: string): string {
  const problem = captureFileNameProblem(value);
  if (problem) throw new InvalidArgumentError(`${problem}.`);
  return value;
}

/** Starts the capture; with a duration, waits (a spinner on a terminal; Ctrl-C stops early), stops it and prints the file. */
export async function runCaptureStart(opts: CaptureStartOptions, ctx: Context): Promise<void> {
  const { project, link, name } = await resolveCaptureLink(ctx, opts.project, opts.link);
  const api = await ctx.api();
  const body = { ...(opts.file === undefined ? {} : { capture_file_name: opts.file }), ...(opts.dlt ? { data_link_type: opts.dlt } : {}) };
  const started = await startCapture(api, project.project_id, link.link_id, body);
  const dlt = opts.dlt ?? 'DLT_EN10MB';
  if (opts.duration === undefined) {
    ctx.out.result({ ...captureRecord(started, name), data_link_type: dlt });
    ctx.out.success(`Capturing on ${name} into ${started.capture_file_path}`);
    ctx.out.note(`stop it with 'emuctl capture stop ${name}'; watch it with 'emuctl capture watch ${name}'`);
    return;
  }
  const began = Date.now();
  const interrupted = await ctx.out.spin(`Capturing on ${name} for ${opts.duration} s (Ctrl-C stops early)`, () => sleepUnlessInterrupted(opts.duration! * 1000));
  const stopped = await stopCapture(api, project.project_id, link.link_id);
  const seconds = Math.round((Date.now() - began) / 100) / 10;
  ctx.out.result({ ...captureRecord(stopped, name, started), data_link_type: dlt, duration: seconds });
  ctx.out.success(`Captured ${seconds} s on ${name}${interrupted ? ' (interrupted)' : ''}: ${started.capture_file_path}`);
  ctx.out.note(`read it with: tshark -r ${started.capture_file_path}`);
}
