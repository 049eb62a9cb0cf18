// The management network bench's pure parts (issue 29): its options, what it reads from ansible
// and the host, the cost of the management interface against the baseline, and its tables.
import { median } from '../lib/stats.js';

/** `--nodes 20,100`: lab sizes, each 1…250 (a lab's /24 has 253 addresses besides the gateway). */
export function parseSizes(text: string): number[] {
  const sizes = text.split(',').map((s) => s.trim()).filter(Boolean).map(Number);
  if (!sizes.length || sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 250)) throw new Error(`--nodes '${text}': sizes 1…250, comma-separated`);
  return sizes;
}

/** `--udp-range 63000-64999`: a port range as [low, high]. */
export function parseRange(text: string, what: string): [number, number] {
  const m = /^(\d+)-(\d+)$/.exec(text.trim());
  const range = m ? [Number(m[1]), Number(m[2])] as [number, number] : undefined;
  if (!range || range[0] < 1 || range[1] > 65535 || range[0] > range[1]) throw new Error(`--${what} '${text}': a range LOW-HIGH of ports`);
  return range;
}

/** The hosts that answered `pong` in `ansible … -m ping -o` output (one line per host: `NAME | SUCCESS => {…"ping": "pong"}`). */
export function ansiblePongs(stdout: string): string[] {
  return stdout.split('\n').filter((l) => / \| SUCCESS => .*"ping": ?"pong"/.test(l)).map((l) => l.split(' ')[0]).sort();
}

/** The lines of `iptables-save` that name a project's management chain or its jump's comment (8 hex digits of its id). */
export function mgmtRules(iptablesSave: string, shortProjectId: string): string[] {
  const tag = shortProjectId.toLowerCase();
  return iptablesSave.split('\n').filter((l) => l.includes(`EMUCTL-MGMT-${tag}`) || l.includes(`emuctl management network ${tag}`));
}

/** Interfaces in `after` that were not in `before` and carry one of the tags (8 hex digits of a node's or the project's id). */
export function interfacesLeft(before: Iterable<string>, after: Iterable<string>, tags: string[]): string[] {
  const had = new Set(before);
  return [...after].filter((name) => !had.has(name) && tags.some((tag) => name.includes(tag))).sort();
}

/** What one lab (with or without `mgmt`) measured. Times in ms from the start of `lab up`; memory in KiB per container. */
export interface LabRun {
  nodes: number;
  mgmt: boolean;
  loadBefore: string;
  upMs: number;
  /** Per container, once its sshd runs and before anything contacted it. */
  cgroupKb: number[];
  rssKb: number[];
  daemonMb: number;
  /** With mgmt only: nodes that answered `ssh … true`; when every node did (else NaN); the first and the median of those that did. */
  sshAnswered?: number;
  sshAllMs?: number;
  sshFirstMs?: number;
  sshMedianMs?: number;
  /** With mgmt only: most pongs in one `ansible all -m ping` run; N of N at (from lab up's start, else NaN); the last run's own duration; runs. */
  ansiblePongs?: number;
  ansibleMs?: number;
  ansibleRunMs?: number;
  ansibleRuns?: number;
  /** With mgmt only: cgroup memory per container after the ssh and Ansible contacts (median, KiB). */
  cgroupAfterKb?: number;
  loadUp: string;
  downMs: number;
  /** What `lab down` left: containers, interfaces, bridges, iptables lines, dnsmasq processes. */
  left: { containers: number; interfaces: number; bridges: number; rules: number; dnsmasq: number };
}

/** A figure of the lab with mgmt beside the baseline: ratio and difference. */
export interface Cost {
  base: number;
  mgmt: number;
  ratio: number;
  diff: number;
}

const cost = (base: number, mgmt: number): Cost => ({ base, mgmt, ratio: mgmt / base, diff: mgmt - base });

/** The management interface's cost per node: cgroup memory (median KiB), process RSS (median KiB), `lab up` ms per node, daemon MB per node. */
export function perNodeCost(base: LabRun, mgmt: LabRun): { cgroupKb: Cost; rssKb: Cost; upMsPerNode: Cost; daemonMbPerNode: Cost } {
  if (base.nodes !== mgmt.nodes || base.mgmt || !mgmt.mgmt) throw new Error('perNodeCost: a baseline and a mgmt lab of the same size');
  return {
    cgroupKb: cost(median(base.cgroupKb), median(mgmt.cgroupKb)),
    rssKb: cost(median(base.rssKb), median(mgmt.rssKb)),
    upMsPerNode: cost(base.upMs / base.nodes, mgmt.upMs / mgmt.nodes),
    daemonMbPerNode: cost(base.daemonMb / base.nodes, mgmt.daemonMb / mgmt.nodes),
  };
}

/** A lab with mgmt reached every node by ssh and by Ansible (a baseline has nothing to reach). */
export const reachedAll = (r: LabRun): boolean => !r.mgmt || (r.sshAnswered === r.nodes && r.ansiblePongs === r.nodes);

/** Nothing left after `lab down`. */
export const clean = (r: LabRun): boolean => Object.values(r.left).every((n) => n === 0);

const s = (ms: number | undefined) => (ms === undefined || !Number.isFinite(ms) ? '–' : `${(ms / 1000).toFixed(1)} s`);
const mib = (kb: number) => (kb / 1024).toFixed(1);
const signed = (n: number, digits: number) => `${n >= 0 ? '+' : '−'}${Math.abs(n).toFixed(digits)}`;
const leftText = (r: LabRun) => `${r.left.containers} / ${r.left.interfaces} / ${r.left.bridges} / ${r.left.rules} / ${r.left.dnsmasq}`;

/** The markdown tables: reachability per size, then the per-node cost against the baseline of the same run. */
export function reportTables(runs: LabRun[]): string {
  const sizes = [...new Set(runs.map((r) => r.nodes))];
  const pairs = sizes.map((n) => ({ n, base: runs.find((r) => r.nodes === n && !r.mgmt), mgmt: runs.find((r) => r.nodes === n && r.mgmt) }));
  const out = [
    '| nodes | load before | `lab up` returns | → first node answers ssh | → median node | → every node answers ssh | → `ansible all -m ping` N of N (runs; last run) | Ansible in < 60 s | `lab down` | left: containers / interfaces / bridges / iptables lines / dnsmasq | load with lab up |',
    '|---:|---|---:|---:|---:|---:|---:|---|---:|---|---|',
  ];
  for (const { n, mgmt } of pairs) {
    if (!mgmt) continue;
    const ansible = mgmt.ansibleRuns === undefined ? '–'
      : Number.isFinite(mgmt.ansibleMs) ? `${s(mgmt.ansibleMs)} (${mgmt.ansibleRuns}; ${s(mgmt.ansibleRunMs)})` : `${mgmt.ansiblePongs} of ${n} at best (${mgmt.ansibleRuns}; ${s(mgmt.ansibleRunMs)})`;
    const met = mgmt.ansibleRuns === undefined ? '–' : (mgmt.ansibleMs ?? NaN) < 60_000 ? 'met' : 'not met';
    const every = mgmt.sshAnswered === undefined ? '–' : mgmt.sshAnswered === n ? s(mgmt.sshAllMs) : `${mgmt.sshAnswered} of ${n} answered`;
    out.push(`| ${n} | ${mgmt.loadBefore} | ${s(mgmt.upMs)} | ${s(mgmt.sshFirstMs)} | ${s(mgmt.sshMedianMs)} | ${every} | ${ansible} | ${met} | ${s(mgmt.downMs)} | ${leftText(mgmt)} | ${mgmt.loadUp} |`);
  }
  out.push('', '| nodes | figure | without `mgmt` (baseline) | with `mgmt: {}` | ratio | difference per node |', '|---:|---|---:|---:|---:|---:|');
  for (const { n, base, mgmt } of pairs) {
    if (!base || !mgmt) continue;
    const c = perNodeCost(base, mgmt);
    out.push(
      `| ${n} | \`lab up\` time per node | ${c.upMsPerNode.base.toFixed(0)} ms | ${c.upMsPerNode.mgmt.toFixed(0)} ms | ${c.upMsPerNode.ratio.toFixed(2)}× | ${signed(c.upMsPerNode.diff, 0)} ms |`,
      `| ${n} | cgroup memory per container, sshd up, before any contact (median) | ${mib(c.cgroupKb.base)} MiB | ${mib(c.cgroupKb.mgmt)} MiB | ${c.cgroupKb.ratio.toFixed(2)}× | ${signed(c.cgroupKb.diff / 1024, 2)} MiB |`,
      `| ${n} | process RSS per container (median) | ${mib(c.rssKb.base)} MiB | ${mib(c.rssKb.mgmt)} MiB | ${c.rssKb.ratio.toFixed(2)}× | ${signed(c.rssKb.diff / 1024, 2)} MiB |`,
      `| ${n} | daemon RSS with the lab up (whole daemon) | ${base.daemonMb.toFixed(1)} MB | ${mgmt.daemonMb.toFixed(1)} MB | ${(mgmt.daemonMb / base.daemonMb).toFixed(2)}× | ${signed(c.daemonMbPerNode.diff * 1024, 0)} KiB |`,
      `| ${n} | \`lab up\` whole lab | ${s(base.upMs)} | ${s(mgmt.upMs)} | ${(mgmt.upMs / base.upMs).toFixed(2)}× | – |`,
      `| ${n} | \`lab down\` whole lab; left | ${s(base.downMs)}; ${leftText(base)} | ${s(mgmt.downMs)}; ${leftText(mgmt)} | ${(mgmt.downMs / base.downMs).toFixed(2)}× | – |`,
    );
    if (mgmt.cgroupAfterKb !== undefined) out.push(`| ${n} | cgroup memory per container after the ssh and Ansible contacts (median) | – | ${mib(mgmt.cgroupAfterKb)} MiB | – | – |`);
  }
  return out.join('\n');
}
