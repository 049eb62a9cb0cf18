import type { Context } from '../../cli/context.js';
import { listComputes } from '../../client/computes.js';
import { listLinks } from '../../client/links.js';
import { listNodes } from '../../client/nodes.js';
import { listProjects, type Project } from '../../client/projects.js';
import type { EventDescriber } from './describe.js';

/** Shows the describer the objects a stream starts from, so that the first update of each says what changed. */
export async function seedDescriber(ctx: Context, describer: EventDescriber, project?: Project): Promise<void> {
  try {
    const api = await ctx.api();
    if (project) {
      const [nodes, links] = await Promise.all([listNodes(api, project.project_id), listLinks(api, project.project_id)]);
      describer.seed('node', nodes);
      describer.seed('link', links);
      describer.seed('project', [project]);
    } else {
      const [computes, projects] = await Promise.all([listComputes(api), listProjects(api)]);
      describer.seed('compute', computes);
      describer.seed('project', projects);
    }
  } catch (err) {
    ctx.debug(`cannot read the objects the events start from: ${(err as Error).message}`);
  }
}
