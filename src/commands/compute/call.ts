import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import { requestTimeoutMs, type Context, type Factory } from '../../cli/context.js';
import { UsageError } from '../../cli/errors.js';
import { serverOf } from '../../client/active-profile.js';
import { findCompute, forwardCall, forwardPath, FORWARD_METHODS, type ForwardMethod } from '../../client/computes.js';
import { answerText } from './render.js';

/** Options of `compute call`. */
export interface ComputeCallOptions {
  compute: string;
  emulator: string;
  /** One or more path segments, optionally with `?query`. */
  action: string;
  /** GET, or POST when there is --data. */
  method?: ForwardMethod;
  /** JSON text, `@file` or `-` (standard input). */
  data?: string;
}

/** The forward route waits up to 30 s for a compute (the daemon's default); the CLI waits a little longer. */
const FORWARD_WAIT_MS = 35_000;

function parseMethod(value: string): ForwardMethod {
  const method = value.toUpperCase() as ForwardMethod;
  if (!FORWARD_METHODS.includes(method)) throw new InvalidArgumentError(`expected one of ${FORWARD_METHODS.join(', ')}.`);
  return method;
}

/** `emuctl compute call [--method M] COMPUTE EMULATOR ACTION [--data JSON|@file|-]`. */
export function computeCallCommand(f: Factory, run = runComputeCall): Command {
  return new Command('call')
    .description("call a compute's API through the controller (/v2/computes/{id}/{emulator}/{action})")
    .argument('<compute>', 'compute name or id (e.g. local)')
    .argument('<emulator>', 'first path segment after /v2/compute/, e.g. network')
    .argument('<action>', 'the rest of the path, e.g. interfaces or projects/ID/ports/udp; may end with ?query')
    .addOption(new Option('--method <method>', `HTTP method: ${FORWARD_METHODS.join(', ')} (default GET, or POST with --data)`).argParser(parseMethod))
    .addOption(new Option('--data <json>', "JSON body: the text itself, @file to read a file, or - for standard input"))
    .action(async (compute: string, emulator: string, action: string, flags: { method?: ForwardMethod; data?: string }, cmd: Command) =>
      run({ compute, emulator, action, method: flags.method, data: flags.data }, await f.context(cmd)));
}

/** The request body from --data, parsed; bad JSON or an unreadable file is a usage error. */
async function readBody(data: string, ctx: Context): Promise<unknown> {
  let text: string;
  let source: string;
  if (data === '-') [text, source] = [await ctx.readStdin(), 'standard input'];
  else if (data.startsWith('@')) {
    source = data.slice(1);
    try {
      text = await readFile(source, 'utf8');
    } catch (err) {
      throw new UsageError(`--data ${data}: cannot read ${source}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
    }
  } else [text, source] = [data, 'the argument'];
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new UsageError(`--data: ${source} is not valid JSON: ${(err as Error).message}`);
  }
}

/** Makes the call through the forward route and prints the compute's answer. */
export async function runComputeCall(opts: ComputeCallOptions, ctx: Context): Promise<void> {
  const method = opts.method ?? (opts.data === undefined ? 'GET' : 'POST');
  if (method === 'GET' && opts.data !== undefined) throw new UsageError('--data needs --method POST or PUT (a GET sends no body)');
  const body = opts.data === undefined ? undefined : await readBody(opts.data, ctx);
  const profile = ctx.profile();
  // No retries (a forwarded POST is not idempotent, and a compute timing out would be waited for three times).
  const api = await ctx.apiFor({
    ...serverOf(profile),
    session: ctx.session(),
    timeoutMs: ctx.env.EMUCTL_TIMEOUT ? requestTimeoutMs(ctx.env) : FORWARD_WAIT_MS,
    retries: 0,
  });
  const compute = await findCompute(api, opts.compute);
  const answer = await forwardCall(api, method, forwardPath(compute.compute_id, opts.emulator, opts.action), body);
  ctx.out.result(answer ?? null, () => answerText(answer, ctx.out.style));
}
