import { InvalidArgumentError } from 'commander';
import type { Context } from '../../cli/context.js';
import { DATA_LINK_TYPES, type DataLinkType } from '../../client/captures.js';
import { findLink, linkName, listLinks, type Link } from '../../client/links.js';
import { listNodes, type Node } from '../../client/nodes.js';
import type { Project } from '../../client/projects.js';
import { resolveProject } from '../shared/project.js';

/** The `<link>` argument every capture verb takes. */
export const LINK_ARGUMENT = ['<link>', 'link UUID, unique UUID prefix, or its ends NODE:PORT-NODE:PORT (e.g. PC1:0-SW1:0)'] as const;

/** A link to capture on, with what naming it needs. */
export interface CaptureTarget {
  project: Project;
  link: Link;
  nodes: Node[];
  /** `PC1:0/0-SW1:0/0`. */
  name: string;
}

/** Resolves the project (given or default) and the link named by `linkRef` in it. */
export async function resolveCaptureLink(ctx: Context, projectRef: string | undefined, linkRef: string): Promise<CaptureTarget> {
  const project = await resolveProject(ctx, projectRef);
  const api = await ctx.api();
  const [links, nodes] = await Promise.all([listLinks(api, project.project_id), listNodes(api, project.project_id)]);
  const link = findLink(links, nodes, linkRef);
  return { project, link, nodes, name: linkName(link, nodes) };
}

/** A capture as the capture verbs print it with --json. */
export interface CaptureRecord {
  link_id: string;
  /** The link's ends, `PC1:0/0-SW1:0/0`. */
  link: string;
  project_id: string;
  capturing: boolean;
  capture_file_name: string | null;
  capture_file_path: string | null;
  capture_compute_id: string | null;
  [field: string]: unknown;
}

/** The capture record of a link; `file` keeps the file name and path when the server no longer says them (after a stop). */
export function captureRecord(link: Link, name: string, file?: Pick<Link, 'capture_file_name' | 'capture_file_path' | 'capture_compute_id'>): CaptureRecord {
  return {
    link_id: link.link_id,
    link: name,
    project_id: link.project_id,
    capturing: link.capturing,
    capture_file_name: link.capture_file_name ?? file?.capture_file_name ?? null,
    capture_file_path: link.capture_file_path ?? file?.capture_file_path ?? null,
    capture_compute_id: link.capture_compute_id ?? file?.capture_compute_id ?? null,
  };
}

/** Parses `--dlt` for commander: a GNS3 name, case-insensitive, `DLT_` optional (`en10mb` → DLT_EN10MB). */
export function parseDataLinkType(value: string): DataLinkType {
  const upper = value.trim().toUpperCase();
  const name = (upper.startsWith('DLT_') ? upper : `DLT_${upper}`) as DataLinkType;
  if (!DATA_LINK_TYPES.includes(name)) throw new InvalidArgumentError(`expected one of ${DATA_LINK_TYPES.join(', ')}.`);
  return name;
}

/** Resolves after `ms`, or earlier on Ctrl-C (SIGINT); true when interrupted. */
export function sleepUnlessInterrupted(ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const onSigint = () => finish(true);
    const timer = setTimeout(() => finish(false), ms);
    function finish(interrupted: boolean) {
      clearTimeout(timer);
      process.off('SIGINT', onSigint);
      resolve(interrupted);
    }
    process.once('SIGINT', onSigint);
  });
}
