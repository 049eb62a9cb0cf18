import '@xterm/xterm/css/xterm.css';
import './style.css';
import type { Link } from '../client/links.js';
import type { Node } from '../client/nodes.js';
import type { Project } from '../client/projects.js';
import { mgmtAddress } from '../lab/inspect.js';
import { readProjectState } from '../lab/state.js';
import { saveLab } from '../lab/save.js';
import { BrowserApi } from './api.js';
import { PacketList } from './capture.js';
import { openConsole, type ConsoleSession } from './console.js';
import { followProject, type Notification } from './events.js';
import { filtersForm } from './filters-form.js';
import { TopologyView } from './topology.js';
import { TrafficPoller } from './traffic.js';

const api = new BrowserApi();
const $ = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;

function showError(err: unknown): void {
  $('error').textContent = err instanceof Error ? err.message : String(err);
}

function button(text: string, id: string, action: () => Promise<unknown>): HTMLButtonElement {
  const b = document.createElement('button');
  b.textContent = text;
  b.id = id;
  b.addEventListener('click', () => {
    $('error').textContent = '';
    action().catch(showError);
  });
  return b;
}

/** The open project: its nodes and links as the notification stream keeps them. */
class LabPage {
  readonly nodes = new Map<string, Node>();
  readonly links = new Map<string, Link>();
  private readonly view: TopologyView;
  private readonly packets = new PacketList($('packets').querySelector('tbody')!, $('packet-count'));
  private console: ConsoleSession | undefined;
  private selected: { kind: 'node' | 'link'; id: string } | undefined;

  constructor(private readonly project: Project) {
    this.view = new TopologyView($('canvas'), (kind, id) => this.select(kind, id));
  }

  async load(): Promise<void> {
    const [nodes, links] = await Promise.all([api.get<Node[]>(`projects/${this.project.project_id}/nodes`), api.get<Link[]>(`projects/${this.project.project_id}/links`)]);
    this.nodes.clear();
    this.links.clear();
    for (const n of nodes) this.nodes.set(n.node_id, n);
    for (const l of links) this.links.set(l.link_id, l);
    this.view.draw(nodes, links);
  }

  start(): void {
    const pid = this.project.project_id;
    $('lab-actions').replaceChildren(
      button('Start all', 'lab-start', () => api.post(`projects/${pid}/nodes/start`)),
      button('Stop all', 'lab-stop', () => api.post(`projects/${pid}/nodes/stop`)),
      button('Suspend all', 'lab-suspend', () => api.post(`projects/${pid}/nodes/suspend`)),
      button('Lab file', 'lab-file-show', () => this.showLabFile()),
    );
    $('lab-file-copy').addEventListener('click', () => void navigator.clipboard.writeText($('lab-file').textContent ?? '').catch(showError));
    followProject(pid, (n) => this.onNotification(n), () => void this.load().catch(showError));
    new TrafficPoller(api, pid, (id, rate) => this.view.showRate(id, rate)).start();
  }

  private onNotification({ action, event }: Notification): void {
    if (action === 'node.created' || action === 'node.updated') {
      this.nodes.set(event.node_id, { ...this.nodes.get(event.node_id), ...event });
      this.view.upsertNode(this.nodes.get(event.node_id)!);
    } else if (action === 'node.deleted') {
      this.nodes.delete(event.node_id);
      this.view.removeNode(event.node_id);
    } else if (action === 'link.created' || action === 'link.updated') {
      this.links.set(event.link_id, event);
      this.view.upsertLink(event);
    } else if (action === 'link.deleted') {
      this.links.delete(event.link_id);
      this.view.removeLink(event.link_id);
    } else return;
    if (this.selected && event[`${this.selected.kind}_id`] === this.selected.id && action.endsWith('.updated')) this.showDetails(false);
  }

  private select(kind: 'node' | 'link', id: string): void {
    this.selected = { kind, id };
    this.showDetails(true);
  }

  /** The side panel of the selected node or link; `fresh`: a new selection (closes the last one's console and packet list). */
  private showDetails(fresh: boolean): void {
    const sel = this.selected!;
    const pid = this.project.project_id;
    const panel = $('details');
    if (sel.kind === 'node') {
      const node = this.nodes.get(sel.id);
      if (!node) return;
      const path = `projects/${pid}/nodes/${node.node_id}`;
      const title = document.createElement('h2');
      title.textContent = `${node.name} (${node.node_type}) — ${node.status}`;
      const actions = document.createElement('div');
      actions.append(
        button('Start', 'node-start', () => api.post(`${path}/start`)),
        button('Stop', 'node-stop', () => api.post(`${path}/stop`)),
        button('Suspend', 'node-suspend', () => api.post(`${path}/suspend`)),
      );
      if (node.console_type && node.console_type !== 'none') actions.append(button('Console', 'node-console', async () => this.openConsole(node)));
      panel.replaceChildren(title, ...mgmtLine(node), actions);
      if (fresh) this.closeLinkViews();
      return;
    }
    const link = this.links.get(sel.id);
    if (!link) return;
    const path = `projects/${pid}/links/${link.link_id}`;
    const ends = link.nodes.map((e) => this.nodes.get(e.node_id)?.name ?? e.node_id).join(' — ');
    const title = document.createElement('h2');
    title.textContent = `${ends}${link.suspend ? ' (suspended)' : ''}${link.capturing ? ' (capturing)' : ''}`;
    const actions = document.createElement('div');
    actions.append(button(link.suspend ? 'Resume link' : 'Suspend link', 'link-suspend', () => api.put(path, { suspend: !link.suspend })));
    if (link.capturing) {
      actions.append(button('Stop capture', 'capture-stop', () => api.post(`${path}/stop_capture`)));
      const download = document.createElement('a');
      download.id = 'capture-download';
      download.href = `/v2/${path}/pcap`;
      download.download = link.capture_file_name ?? 'capture.pcap';
      download.textContent = 'Download pcap';
      actions.append(download);
    } else actions.append(button('Start capture', 'capture-start', () => api.post(`${path}/start_capture`, {})));
    panel.replaceChildren(title, actions);
    void filtersForm(api, pid, link, showError).then((form) => {
      if (this.selected?.id === link.link_id) panel.append(form);
    }, showError);
    if (fresh) this.closeLinkViews();
    // A capture that stopped ends its stream by itself; the next one on the link gets a new list.
    if (!link.capturing) delete $('packets').dataset.following;
    else if ($('packets').dataset.following !== link.link_id) {
      $('packets').dataset.following = link.link_id;
      this.packets.follow(pid, link.link_id).catch(showError);
    }
  }

  private closeLinkViews(): void {
    this.packets.stop();
    delete $('packets').dataset.following;
  }

  private openConsole(node: Node): void {
    this.console?.close();
    $('console-title').textContent = `Console: ${node.name}`;
    this.console = openConsole($('console'), this.project.project_id, node.node_id);
  }

  /** The project as `lab save` writes it (the CLI's own code, over the page's API client). */
  private async showLabFile(): Promise<void> {
    const state = await readProjectState(api, this.project);
    $('lab-file').textContent = saveLab(state);
  }
}

async function main(): Promise<void> {
  const projects = await api.get<Project[]>('projects');
  const wanted = new URLSearchParams(location.search).get('project');
  const list = $('project-list');
  list.replaceChildren(...projects.map((p) => {
    const li = document.createElement('li');
    const a = document.createElement('a');
    a.href = `?project=${encodeURIComponent(p.project_id)}`;
    a.textContent = `${p.name}`;
    a.dataset.projectId = p.project_id;
    li.append(a, ` ${p.status}`);
    if (p.project_id === wanted) li.className = 'current';
    return li;
  }));
  list.dataset.loaded = 'true';
  let project = projects.find((p) => p.project_id === wanted) ?? (projects.length === 1 ? projects[0] : undefined);
  if (!project) return;
  if (project.status !== 'opened') project = await api.post<Project>(`projects/${project.project_id}/open`);
  $('project-name').textContent = project.name;
  const page = new LabPage(project);
  await page.load();
  page.start();
}

main().catch(showError);

/** A node's management addresses as a line of the panel (none when its lab has no management network). */
function mgmtLine(node: Node): HTMLElement[] {
  const addresses = [mgmtAddress(node, 'mgmt_ipv4'), mgmtAddress(node, 'mgmt_ipv6')].filter(Boolean);
  if (!addresses.length) return [];
  const line = document.createElement('p');
  line.id = 'node-mgmt';
  line.textContent = `Management: ${addresses.join(', ')}`;
  return [line];
}
