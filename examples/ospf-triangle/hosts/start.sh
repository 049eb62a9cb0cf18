# An end host of examples/ospf-triangle.yml: waits for eth0 (it arrives once the node's link is
# up), gives it ADDRESS and a default route through GATEWAY (from the node's env), then idles
# until stopped.
while ! ip link set eth0 up 2>/dev/null; do sleep 0.2; done
ip addr add "$ADDRESS" dev eth0
ip route add default via "$GATEWAY"
trap 'exit 0' TERM INT
while :; do sleep 1 & wait $!; done
