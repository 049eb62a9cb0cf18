import type { Context } from '../../cli/context.js';
import { requestTimeoutMs } from '../../cli/context.js';
import { serverOf } from '../../client/active-profile.js';
import type { StreamServer } from '../../client/api.js';

/** How to reach the active server for a long-lived stream (a pcap, notifications): its URL and credentials. */
export function streamServer(ctx: Context): StreamServer {
  return {
    ...serverOf(ctx.profile()),
    session: ctx.session(),
    connectTimeoutMs: requestTimeoutMs(ctx.env),
    debug: ctx.globals.debug ? (line) => ctx.debug(line) : undefined,
  };
}

/** Runs `task` with an AbortSignal that Ctrl-C (SIGINT) fires; `interrupted()` says whether it did. */
export async function withInterrupt<T>(task: (signal: AbortSignal, interrupted: () => boolean) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    return await task(controller.signal, () => controller.signal.aborted);
  } finally {
    process.off('SIGINT', onSigint);
  }
}
