/**
 * The operator settings that widen what a node may do to its host, each off or empty by default
 * (settings.ts resolves them; each kind's containment check reads them).
 */
export interface HostPolicy {
  /** qemu_unsafe_options: QEMU options pass unchecked. */
  qemuUnsafeOptions: boolean;
  /** docker_unsafe_caps: docker nodes may be privileged and ask for any capability. */
  dockerUnsafeCaps: boolean;
  /** docker_registries: registries (`host[:port]`) an image may name although they are local, IP literals or have a port. */
  dockerRegistries: readonly string[];
}

/** No widening at all. */
export const STRICT_HOST_POLICY: HostPolicy = Object.freeze({ qemuUnsafeOptions: false, dockerUnsafeCaps: false, dockerRegistries: Object.freeze([]) as readonly string[] });
