import { Command } from 'commander';
import type { Context, Factory } from '../../cli/context.js';
import { addToPool, createPool, deletePool, listPools, poolResources, removeFromPool, resolvePool } from '../../client/pools.js';
import { renderTable } from '../../render/table.js';
import { resolveProject } from '../shared/project.js';

/** What a pool verb does, with its arguments. */
export type PoolVerb =
  | { verb: 'list' }
  | { verb: 'create'; name: string }
  | { verb: 'delete'; pool: string }
  | { verb: 'show'; pool: string }
  | { verb: 'add' | 'remove'; pool: string; project?: string };

/** `emuctl pool list|create|delete|show|add|remove`: GNS3 3.x resource pools (a v2 server: exit 2). */
export function poolCommand(f: Factory, run = runPool): Command {
  const verb = (name: string, description: string, args: string[], build: (values: string[]) => PoolVerb) => {
    const command = new Command(name).description(description);
    for (const arg of args) command.argument(arg);
    return command.action(async (...params: unknown[]) => {
      const cmd = params[params.length - 1] as Command;
      await run(build(params.slice(0, args.length) as string[]), await f.context(cmd));
    });
  };
  return new Command('pool')
    .description('resource pools of a GNS3 3.x server: list, create, delete, show, add and remove projects')
    .addCommand(verb('list', 'list the pools', [], () => ({ verb: 'list' })).alias('ls'))
    .addCommand(verb('create', 'create a pool', ['<name>'], ([name]) => ({ verb: 'create', name })))
    .addCommand(verb('delete', 'delete a pool', ['<pool>'], ([pool]) => ({ verb: 'delete', pool })))
    .addCommand(verb('show', "list a pool's resources", ['<pool>'], ([pool]) => ({ verb: 'show', pool })))
    .addCommand(verb('add', 'put a project in a pool (default: the default project)', ['<pool>', '[project]'], ([pool, project]) => ({ verb: 'add', pool, project })))
    .addCommand(verb('remove', 'take a project out of a pool', ['<pool>', '[project]'], ([pool, project]) => ({ verb: 'remove', pool, project })));
}

/** Runs one pool verb. */
export async function runPool(opts: PoolVerb, ctx: Context): Promise<void> {
  const api = await ctx.api();
  switch (opts.verb) {
    case 'list': {
      const pools = await listPools(api);
      ctx.out.result(pools, () => renderTable(pools, [
        { header: 'name', value: (p) => p.name },
        { header: 'id', value: (p) => p.resource_pool_id },
      ], ctx.out.style));
      return;
    }
    case 'create': {
      const pool = await createPool(api, opts.name);
      ctx.out.result(pool);
      ctx.out.success(`Created pool ${pool.name} (${pool.resource_pool_id})`);
      return;
    }
    case 'delete': {
      const pool = await resolvePool(api, opts.pool);
      await deletePool(api, pool.resource_pool_id);
      ctx.out.success(`Deleted pool ${pool.name} (${pool.resource_pool_id})`);
      return;
    }
    case 'show': {
      const pool = await resolvePool(api, opts.pool);
      const resources = await poolResources(api, pool.resource_pool_id);
      ctx.out.result(resources, () => renderTable(resources, [
        { header: 'type', value: (r) => r.resource_type },
        { header: 'name', value: (r) => r.name ?? '-' },
        { header: 'id', value: (r) => r.resource_id },
      ], ctx.out.style));
      return;
    }
    default: {
      const pool = await resolvePool(api, opts.pool);
      const project = await resolveProject(ctx, opts.project);
      if (opts.verb === 'add') await addToPool(api, pool.resource_pool_id, project.project_id);
      else await removeFromPool(api, pool.resource_pool_id, project.project_id);
      ctx.out.success(`${opts.verb === 'add' ? 'Added' : 'Removed'} project ${project.name} ${opts.verb === 'add' ? 'to' : 'from'} pool ${pool.name}`);
    }
  }
}
