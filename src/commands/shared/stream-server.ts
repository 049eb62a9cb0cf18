import { requestTimeoutMs, type Context } from '../../cli/context.js';
import { unreachableHint } from '../../client/active-profile.js';
import type { StreamServer } from '../../client/streamed-http.js';

/** The active server for streamed transfers (project archives): its URL, credentials and wait for answers. */
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
