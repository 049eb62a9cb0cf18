import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { UnreachableError } from '../../cli/errors.js';
import { clientVersion } from '../../cli/meta.js';
import { getServerVersion, type ServerVersion } from '../../client/version.js';
import { renderFields } from '../../render/table.js';

/** Options of `version` (none of its own). */
export type VersionOptions = Record<string, never>;

/** `emuctl version`: client and server versions. */
export function versionCommand(f: Factory, run = runVersion): Command {
  return new Command('version')
    .description("print the client's version and the server's (exit 3 if the server cannot be reached)")
    .action(async (_flags: object, cmd: Command) => run({}, await f.context(cmd)));
}

/** Prints both versions; an unreachable server still gets the client's version printed, then exit 3. */
export async function runVersion(_opts: VersionOptions, ctx: Context): Promise<void> {
  const client = clientVersion();
  const api = await ctx.api();
  try {
    const server = await getServerVersion(api);
    ctx.out.result({ client, server: { ...server, url: api.url } }, () => renderFields([
      ['client', `emuctl ${client}`],
      ['server', `${serverName(server)} at ${api.url}${server.local ? ' (local)' : ''}`],
    ], ctx.out.style));
  } catch (err) {
    if (!(err instanceof UnreachableError)) throw err;
    ctx.out.result({ client, server: null, url: api.url }, () => renderFields([['client', `emuctl ${client}`]], ctx.out.style));
    throw err;
  }
}

/** `emuctl 0.1.0 (GNS3 API 2.2.42)` for an emuctl daemon, `GNS3 2.2.42` for any other server. */
function serverName(server: ServerVersion): string {
  return server.emuctl_version ? `emuctl ${server.emuctl_version} (GNS3 API ${server.version})` : `GNS3 ${server.version}`;
}
