import type { LabSpec, NodeSpec, StartupFile } from './model.js';

/** Where the images' sshd looks for root's keys. */
export const AUTHORIZED_KEYS = '/root/.ssh/authorized_keys';

/**
 * The lab with its public key among each docker node's startup files (`files:`), so that the
 * applier writes it through the node's files before the container first starts, as it does any
 * startup file (and so against a remote controller too). A node whose file already gives
 * authorized_keys keeps its own lines, the lab's key after them. A lab without `mgmt.ssh` is
 * returned as it is.
 */
export function withAuthorizedKey(spec: LabSpec, publicKey: string): LabSpec {
  if (!spec.mgmt?.ssh) return spec;
  const line = `${publicKey.trim()}\n`;
  const nodes = spec.nodes.map((node): NodeSpec => {
    if (node.type !== 'docker') return node;
    const files = node.files ?? [];
    const given = files.find((f) => f.path === AUTHORIZED_KEYS);
    if (given) {
      const text = given.text ?? '';
      return { ...node, files: files.map((f) => (f === given ? { ...f, text: `${text}${text && !text.endsWith('\n') ? '\n' : ''}${line}` } : f)) };
    }
    const key: StartupFile = { path: AUTHORIZED_KEYS, source: "(the lab's SSH key)", pos: spec.mgmt!.pos, text: line };
    return { ...node, files: [...files, key] };
  });
  return { ...spec, nodes };
}
