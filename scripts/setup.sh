#!/usr/bin/env bash
# Installs what emuctl and its tests need on a fresh Debian machine, then builds it:
# Debian packages (vpcs end hosts, tcpdump for BPF filters, QEMU for router and host
# nodes, graphviz for `lab graph --format svg`, tshark, xmllint (libxml2-utils: lab test's JUnit XML is checked against its schema), zstd (the tests write GNS3 3.x-style zstd archive members), groff, openssl (TLS certificates) and chromium for tests (the browser
# tests drive Debian's Chromium through playwright-core, which never downloads a browser), docker.io
# (a running engine for docker nodes) and mmdebstrap (the tests' FRR image is built from Debian packages);
# iputils-ping (the host pings management addresses in tests); openssh-client and ansible-core (node ssh, and the tests
# reach lab nodes with ssh and `ansible -m ping`); build-essential and python3 for node-gyp, which builds the native dataplane), the npm packages
# from the lock file, and the build.
set -euo pipefail
cd "$(dirname "$0")/.."

# command:package — every tool the daemon or the test suite runs (the test runner fails on skips).
tools=(vpcs:vpcs tcpdump:tcpdump qemu-system-x86_64:qemu-system-x86 qemu-img:qemu-utils tshark:tshark groff:groff-base dot:graphviz chromium:chromium openssl:openssl
  dockerd:docker.io mmdebstrap:mmdebstrap ip:iproute2 docker-registry:docker-registry
  dnsmasq:dnsmasq-base iptables:iptables iperf3:iperf3 ethtool:ethtool xmllint:libxml2-utils zstd:zstd
  ping:iputils-ping ssh:openssh-client ssh-keygen:openssh-client ansible:ansible-core)
missing=()
for tool in "${tools[@]}"; do
  PATH="$PATH:/usr/sbin:/sbin" command -v "${tool%%:*}" >/dev/null 2>&1 || missing+=("${tool##*:}")
done
# Without a toolchain the TypeScript dataplane is used and VPCS nodes do not start (their confinement
# shim, native/vpcs-confine.c, needs the C compiler, or vpcs_unconfined): installing one is best effort.
toolchain=()
{ command -v g++ && command -v make; } >/dev/null 2>&1 || toolchain+=(build-essential)
command -v python3 >/dev/null 2>&1 || toolchain+=(python3)
if [ ${#missing[@]} -gt 0 ] || [ ${#toolchain[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing Debian packages: ${missing[*]} ${toolchain[*]}" >&2
  $sudo apt-get update -qq
  if [ ${#missing[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  if [ ${#toolchain[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${toolchain[@]}" >/dev/null \
      || echo "setup: could not install ${toolchain[*]}: the native dataplane and the VPCS confinement shim will not be built" >&2
  fi
fi

if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
fi
npm run --silent build

# Docker nodes need a running engine. Where none answers: systemd's docker service, else dockerd by
# hand. emuctl's containers have no Docker network, so dockerd needs neither its bridge nor its
# iptables rules (and machines without iptables modules refuse to start it with them).
if ! docker info >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  if [ -d /run/systemd/system ]; then $sudo systemctl start docker >/dev/null 2>&1 || true; fi
  if ! docker info >/dev/null 2>&1; then
    echo "setup: starting dockerd (--iptables=false --bridge=none), log in /var/log/emuctl-dockerd.log" >&2
    $sudo sh -c 'setsid dockerd --iptables=false --bridge=none >>/var/log/emuctl-dockerd.log 2>&1 < /dev/null &'
    for _ in $(seq 1 60); do docker info >/dev/null 2>&1 && break; sleep 0.5; done
    docker info >/dev/null 2>&1 || echo "setup: dockerd did not start (see /var/log/emuctl-dockerd.log): docker nodes will answer 409" >&2
  fi
fi
