import dagre from '@dagrejs/dagre';
import type { Link } from '../client/links.js';
import type { Node } from '../client/nodes.js';

export interface Point {
  x: number;
  y: number;
}

const NODE_SIZE = 60;

/** The project's own positions when its nodes have any (GNS3 places them), else a dagre layout. */
export function layoutNodes(nodes: Node[], links: Link[]): Map<string, Point> {
  const placed = nodes.some((n) => (n.x ?? 0) !== 0 || (n.y ?? 0) !== 0);
  if (placed) return new Map(nodes.map((n) => [n.node_id, { x: n.x ?? 0, y: n.y ?? 0 }]));
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'LR', nodesep: 30, ranksep: 80, marginx: 20, marginy: 20 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const n of nodes) g.setNode(n.node_id, { width: NODE_SIZE, height: NODE_SIZE });
  for (const l of links) if (l.nodes.length === 2) g.setEdge(l.nodes[0].node_id, l.nodes[1].node_id);
  dagre.layout(g);
  return new Map(nodes.map((n) => {
    const p = g.node(n.node_id);
    return [n.node_id, { x: p?.x ?? 0, y: p?.y ?? 0 }];
  }));
}

/** Where a node placed later (created while the page is open) goes: right of everything drawn. */
export function placeBeside(positions: Map<string, Point>): Point {
  let x = 0;
  let y = 0;
  for (const p of positions.values()) {
    if (p.x > x) x = p.x;
    y = p.y;
  }
  return { x: x + NODE_SIZE * 2, y };
}
