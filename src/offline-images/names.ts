/** The images emuctl builds offline from Debian packages (`emuctl image build`): a busybox host, an FRR router (with sshd) and a host with sshd and Python (for Ansible). */
export const OFFLINE_IMAGE_NAMES = ['frr', 'host', 'ssh'] as const;

/** One of the offline images. */
export type OfflineImageName = (typeof OFFLINE_IMAGE_NAMES)[number];

/** The tag `emuctl image build NAME` gives the image, and the devices' default image. */
export function latestTag(name: OfflineImageName): string {
  return `emuctl/${name}:latest`;
}

/** The repository of an image's content-hash tag (`emuctl-test/frr:<hash>`), which the tests use. */
export function hashRepository(name: OfflineImageName): string {
  return `emuctl-test/${name}`;
}

/** Which offline image a Docker image reference names (`emuctl/frr:latest`, `emuctl-test/host:<hash>`), if any. */
export function offlineImageOf(image: string): OfflineImageName | undefined {
  const m = /^(?:emuctl|emuctl-test)\/(frr|host|ssh)(?::[\w][\w.-]*)?$/.exec(image);
  return m ? (m[1] as OfflineImageName) : undefined;
}

/** The command that builds a missing offline image, to name in an error; undefined for any other image. */
export function buildHint(image: string): string | undefined {
  const name = offlineImageOf(image);
  return name ? `emuctl image build ${name}` : undefined;
}
