import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultBaseMac, qemuArguments, splitOptions, type QemuCommandSpec } from '../../../../src/daemon/kinds/qemu/qemu-command.js';
import { macPlus } from '../../../../src/util/mac-address.js';
import { standardPorts } from '../../../../src/daemon/controller/node-ports.js';
import { applySettings, defaultSettings, managementMac } from '../../../../src/daemon/kinds/qemu/qemu-settings.js';

describe('QEMU command line', () => {
  it('splits options like a shell, without expanding anything', () => {
    assert.deepEqual(splitOptions('-cpu host  -smbios "type=1,serial=a;b" \'$(x)\' a\\ b'), ['-cpu', 'host', '-smbios', 'type=1,serial=a;b', '$(x)', 'a b']);
    assert.deepEqual(splitOptions('x;rm -rf /|y $(touch z) `id`'), ['x;rm', '-rf', '/|y', '$(touch', 'z)', '`id`']);
    assert.deepEqual(splitOptions(''), []);
    assert.deepEqual(splitOptions(null), []);
    assert.throws(() => splitOptions('-name "open'), /unterminated " quote/);
  });

  it('numbers MACs as GNS3 does: 0c:XX:XX:XX:00:00 from the node id, adapter N gets base + N', () => {
    assert.equal(defaultBaseMac('2320a0b9-ed9b-45d9-9bef-c6d13bd9dde2'), '0c:20:a0:b9:00:00');
    assert.equal(macPlus('0c:20:a0:b9:00:ff', 1), '0c:20:a0:b9:01:00');
  });

  it('builds one netdev per adapter with a tunnel, a plain device for one without, and the options last', () => {
    const spec = {
      name: 'R1', uuid: 'u', ram: 256, cpus: 2, accel: 'tcg', bootPriority: 'c', drives: [{ drive: 'hdb', file: '/x,y.qcow2', interface: 'virtio' }],
      console: { type: 'telnet', socket: 'console.sock' }, qmpSocket: 'qmp.sock',
      adapters: [{ type: 'e1000', mac: '0c:00:00:00:00:00', tunnel: { qemuPort: 10001, wirePort: 10002 } }, { type: 'e1000', mac: '0c:00:00:00:00:01' }],
      options: ['-cpu', 'max'],
    } satisfies QemuCommandSpec;
    const args = qemuArguments(spec);
    const joined = args.join(' ');
    assert.match(joined, /-drive file=\/x,,y\.qcow2,if=virtio,index=1,media=disk,id=drive1/);
    assert.match(joined, /-chardev socket,id=emuctl-serial,path=console\.sock,server=on,wait=off,telnet=on -serial chardev:emuctl-serial/);
    assert.ok(!/telnet:|tcp:/.test(joined), 'QEMU opens no TCP console of its own: emuctl relays the port through its guard');
    assert.match(joined, /-device e1000,mac=0c:00:00:00:00:00,netdev=gns3-0 -netdev socket,id=gns3-0,udp=127\.0\.0\.1:10002,localaddr=127\.0\.0\.1:10001/);
    assert.match(joined, /-device e1000,mac=0c:00:00:00:00:01 /);
    assert.deepEqual(args.slice(-2), ['-cpu', 'max']);
    const appended = qemuArguments({ ...spec, append: 'console=ttyS0 -plugin file=x.so', options: [] });
    assert.equal(appended[appended.indexOf('-append') + 1], 'console=ttyS0 -plugin file=x.so', 'kernel_command_line is one -append argument');
    assert.ok(!appended.includes('-plugin'));
    const named = qemuArguments({ ...spec, name: 'R1,process=x,debug-threads=on', options: [] });
    assert.equal(named[named.indexOf('-name') + 1], 'R1,,process=x,,debug-threads=on', 'a comma in the name stays in the name');
    assert.ok(args.includes('-net') && args.includes('none'), 'no user networking back-end');
  });

  it("names ports as GNS3's standard port factory: format, segments, first_port_name, custom adapters", () => {
    const view = (layout: Record<string, unknown>, properties: Record<string, unknown> = { adapters: 3, mac_address: '0c:00:00:00:00:00' }) => ({
      properties, computeState: {}, layout: { port_name_format: 'Ethernet{0}', port_segment_size: 0, first_port_name: null, custom_adapters: [], ...layout },
    });
    assert.deepEqual(standardPorts(view({})).map((p) => p.name), ['Ethernet0', 'Ethernet1', 'Ethernet2']);
    assert.deepEqual(standardPorts(view({ port_name_format: 'Gi{segment0}/{port0}', port_segment_size: 2 })).map((p) => p.name), ['Gi0/0', 'Gi0/1', 'Gi1/0']);
    assert.deepEqual(standardPorts(view({ first_port_name: 'mgmt0', port_name_format: 'eth{0}' })).map((p) => p.name), ['mgmt0', 'eth0', 'eth1']);
    const custom = standardPorts(view({ custom_adapters: [{ adapter_number: 1, port_name: 'wan', mac_address: '02:00:00:00:00:09', adapter_type: 'virtio-net-pci' }] }));
    assert.deepEqual(custom.map((p) => [p.name, p.mac_address, p.adapter_number]), [['Ethernet0', '0c:00:00:00:00:00', 0], ['wan', '02:00:00:00:00:09', 1], ['Ethernet2', '0c:00:00:00:00:02', 2]]);
    assert.throws(() => standardPorts(view({ port_name_format: 'e{nope}' })), /Invalid port name format/);
  });

  it('puts the management NIC after the data adapters: a TAP netdev of its own, no script, the MAC after theirs; odd values never reach QEMU', () => {
    const spec = {
      name: 'R1', uuid: 'u', ram: 256, cpus: 1, accel: 'tcg', bootPriority: 'c', drives: [], qmpSocket: 'qmp.sock',
      adapters: [{ type: 'virtio-net-pci', mac: '0c:00:00:00:00:00', tunnel: { qemuPort: 10001, wirePort: 10002 } }],
      management: { type: 'virtio-net-pci', mac: '0c:00:00:00:00:01', tap: 'emuq0123abcd' }, options: ['-cpu', 'max'],
    } satisfies QemuCommandSpec;
    const args = qemuArguments(spec);
    const joined = args.join(' ');
    assert.match(joined, /netdev=gns3-0 -netdev socket,id=gns3-0,\S+ -device virtio-net-pci,mac=0c:00:00:00:00:01,netdev=emuctl-mgmt -netdev tap,id=emuctl-mgmt,ifname=emuq0123abcd,script=no,downscript=no -cpu max$/);
    assert.ok(!qemuArguments({ ...spec, management: undefined }).join(' ').includes('tap'), 'no management NIC without a network');
    assert.throws(() => qemuArguments({ ...spec, management: { ...spec.management, tap: 'x,script=/tmp/evil' } }), /cannot be a QEMU option value/);
    assert.throws(() => qemuArguments({ ...spec, management: { ...spec.management, mac: '0c:00:00:00:00:01,vhost=on' } }), /cannot be a QEMU option value/);

    const id = '2320a0b9-ed9b-45d9-9bef-c6d13bd9dde2';
    assert.equal(managementMac(applySettings(defaultSettings(id), { adapters: 2 }, id)), '0c:20:a0:b9:00:02', 'base + the adapter count');
    assert.equal(managementMac(applySettings(defaultSettings(id), { adapters: 1, mac_address: '0C:00:00:00:00:FF' }, id)), '0c:00:00:00:01:00');
  });
});
