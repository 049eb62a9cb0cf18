#!/bin/bash
# Written by emuctl: starts the FRR daemons /etc/frr/daemons enables (zebra always, staticd only
# when it says staticd=yes), loads frr.conf with vtysh -b, then hands the daemons to watchfrr.
log_success_msg() { :; }
log_warning_msg() { echo "$@" >&2; }
log_failure_msg() { echo "$@" >&2; }
. /usr/lib/frr/frrcommon.sh
daemons=zebra
for d in $DAEMONS; do
	eval "on=\${$d:-no}"
	[ "$d" != zebra ] && [ "$on" != no ] && [ "$on" != 0 ] && daemons="$daemons $d"
done
for d in $daemons; do daemon_start --all "$d"; done
vtysh_b || echo "emuctl: vtysh -b did not load all of /etc/frr/frr.conf" >&2
watchfrr_options="$watchfrr_options $daemons"
daemon_start watchfrr
trap '/usr/lib/frr/frrinit.sh stop; exit 0' TERM INT
while :; do sleep 86400 & wait $!; done
