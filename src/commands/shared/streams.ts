import type { Context } from '../../cli/context.js';
import { requestTimeoutMs } from '../../cli/context.js';
import { unreachableHint } from '../../client/active-profile.js';
import type { StreamServer } from '../../client/api.js';

/** How to reach the active server for a long-lived stream (a pcap, notifications): its URL and credentials. */
export function streamServer(ctx: Context): StreamServer {
  const profile = ctx.profile();
  return {
    url: profile.url,
    user: profile.user,
    password: profile.password,
    connectTimeoutMs: requestTimeoutMs(ctx.env),
    unreachableHint: unreachableHint(profile.url),
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
