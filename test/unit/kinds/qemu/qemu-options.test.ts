import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { checkCommandLineValues, startCommand } from '../../../../src/daemon/kinds/qemu/command-line-values.js';
import { ImageStore } from '../../../../src/daemon/kinds/qemu/images.js';
import { splitOptions } from '../../../../src/daemon/kinds/qemu/qemu-command.js';
import { checkQemuOptions, parseQemuOptions, parseSubOptions, relativeImageName } from '../../../../src/daemon/kinds/qemu/qemu-options.js';
import { defaultSettings } from '../../../../src/daemon/kinds/qemu/qemu-settings.js';
import { ConflictError, InvalidError } from '../../../../src/daemon/errors.js';

const IMAGES = '/srv/images';
const store = new ImageStore(IMAGES, 1);
const check = (options: string) => checkQemuOptions(options, (name) => store.pathOf(name));

/** Asserts that `options` is refused with a 400 whose message names `named`. */
function refused(options: string, named: string | RegExp): void {
  assert.throws(() => check(options), (err: Error) => {
    assert.ok(err instanceof InvalidError, `${options}: ${err.message}`);
    if (typeof named === 'string') assert.ok(err.message.includes(named), `${options}: '${err.message}' names ${named}`);
    else assert.match(err.message, named);
    return true;
  }, `refused: ${options}`);
}

describe('QEMU options allow-list', () => {
  it('parses sub-options as QEMU does: implied first key, doubled commas, bare keys mean on', () => {
    assert.deepEqual(parseSubOptions('e1000,mac=0c:00:00:00:00:01,romfile=', 'driver'), [
      { key: 'driver', value: 'e1000' }, { key: 'mac', value: '0c:00:00:00:00:01' }, { key: 'romfile', value: '' },
    ]);
    assert.deepEqual(parseSubOptions('type=1,serial=a,,file=/etc/passwd'), [{ key: 'type', value: '1' }, { key: 'serial', value: 'a,file=/etc/passwd' }]);
    assert.deepEqual(parseSubOptions('pc,usb'), [{ key: 'pc', value: 'on' }, { key: 'usb', value: 'on' }]);
    assert.deepEqual(parseSubOptions('pc,usb', 'type'), [{ key: 'type', value: 'pc' }, { key: 'usb', value: 'on' }]);
  });

  it('accepts what labs need and passes it on under one-dash names', () => {
    const options = '-cpu max,+ssse3 -smp 2,sockets=1,cores=2 -m 256M --machine pc,accel=tcg,usb=off -accel tcg,thread=single -enable-kvm '
      + '-device e1000,mac=0c:00:00:00:00:09,romfile= -device virtio-net-pci,id=n1,bus=pci.0,addr=0x9 -device isa-serial -rtc base=utc,clock=host '
      + '-boot order=c,menu=off -global kvm-pit.lost_tick_policy=discard -global driver=ICH9-LPC,property=disable_s3,value=1 -nographic -display none '
      + '-vga std -k en-us -usb -usbdevice tablet -no-reboot -nodefaults -smbios "type=1,serial=a;b,,c" -name R1,debug-threads=on -serial none -monitor none '
      + '-append "console=ttyS0 -plugin x" -fw_cfg name=opt/emuctl,string=hi -icount shift=auto -overcommit mem-lock=off';
    const { args, images } = check(options);
    assert.deepEqual(images, []);
    assert.equal(args[args.indexOf('-machine') + 1], 'pc,accel=tcg,usb=off');
    assert.equal(args[args.indexOf('-append') + 1], 'console=ttyS0 -plugin x');
    assert.deepEqual(args, splitOptions(options).map((word) => (word === '--machine' ? '-machine' : word)));
  });

  it('refuses what opens a file, a socket, a plugin, a monitor or a chardev backend, naming the option', () => {
    for (const [options, named] of [
      ['-plugin file=./libplugin.so', '-plugin'],
      ['--plugin file=./libplugin.so', '--plugin'],
      ['-drive file=/etc/shadow,if=virtio', '-drive'],
      ['-chardev file,id=c0,path=/tmp/x', '-chardev'],
      ['-object memory-backend-file,id=m,mem-path=/dev/shm/x', '-object'],
      ['-add-fd fd=3,set=1', '-add-fd'],
      ['-monitor unix:/tmp/m,server', '-monitor'],
      ['-monitor stdio', '-monitor'],
      ['-qmp tcp:127.0.0.1:4444,server', '-qmp'],
      ['-mon chardev=qmp,mode=control', '-mon'],
      ['-serial file:/tmp/x', '-serial'],
      ['-serial tcp:127.0.0.1:1,server', '-serial'],
      ['-serial pipe:/tmp/p', '-serial'],
      ['-serial chardev:qmp', '-serial'],
      ['-parallel file:/tmp/x', '-parallel'],
      ['-debugcon file:/tmp/x', '-debugcon'],
      ['-incoming exec:touch /tmp/x', '-incoming'],
      ['-L /tmp', '-L'],
      ['-netdev user,id=u,smb=/', '-netdev'],
      ['-nic user,hostfwd=tcp::2222-:22', '-nic'],
      ['-net tap,script=/tmp/x', '-net'],
      ['-fw_cfg name=opt/x,file=/etc/shadow', 'file='],
      ['-fw_cfg opt/x,file=/etc/shadow', 'file='],
      ['-readconfig /tmp/x.cfg', '-readconfig'],
      ['-writeconfig /tmp/x.cfg', '-writeconfig'],
      ['-set drive.drive0.file=/etc/shadow', '-set'],
      ['-D /tmp/log', '-D'],
      ['-d in_asm', '-d'],
      ['-pidfile /tmp/pid', '-pidfile'],
      ['-trace file=/tmp/t', '-trace'],
      ['-daemonize', '-daemonize'],
      ['-runas nobody', '-runas'],
      ['-chroot /tmp', '-chroot'],
      ['-option-rom /tmp/rom', '-option-rom'],
      ['-hda /etc/shadow', '-hda'],
      ['-cdrom /etc/shadow', '-cdrom'],
      ['-fda /etc/shadow', '-fda'],
      ['-mtdblock /etc/shadow', '-mtdblock'],
      ['-sd /etc/shadow', '-sd'],
      ['-pflash /etc/shadow', '-pflash'],
      ['-blockdev driver=file,filename=/etc/shadow,node-name=f', '-blockdev'],
      ['-virtfs local,path=/,mount_tag=r,security_model=none', '-virtfs'],
      ['-fsdev local,id=f,path=/', '-fsdev'],
      ['-vnc unix:/tmp/vnc', '-vnc'],
      ['-spice port=5930', '-spice'],
      ['-display vnc=unix:/tmp/v', '-display'],
      ['-display egl-headless,rendernode=/dev/dri/x', '-display'],
      ['-display gtk', '-display'],
      ['-usbdevice disk:/etc/shadow', '-usbdevice'],
      ['-usbdevice braille', '-usbdevice'],
      ['-usbdevice serial::tcp:127.0.0.1:1', '-usbdevice'],
      ['-mem-path /dev/shm', '-mem-path'],
      ['-m 256,path=/tmp', 'path='],
      ['-acpitable file=/etc/shadow', '-acpitable'],
      ['-smbios file=/etc/shadow', 'file='],
      ['-boot order=c,splash=/etc/shadow', 'splash='],
      ['-machine pc,dumpdir=/tmp', 'dumpdir='],
      ['-machine pc,memory-backend=m', 'memory-backend='],
      ['-machine pc,kernel=/etc/shadow', 'kernel='],
      ['-machine pc,firmware=/etc/shadow', 'firmware='],
      ['-machine virt,dtb=/etc/shadow', 'dtb='],
      ['-M pc,initrd=/etc/shadow', 'initrd='],
      ['-machine pc,pflash0=drive0', 'pflash0='],
      ['-icount shift=auto,rr=record,rrfile=/tmp/x', 'rr='],
      ['-semihosting-config enable=on,chardev=qmp', '-semihosting-config'],
      ['-tpmdev passthrough,id=t,path=/dev/tpm0', '-tpmdev'],
      ['-audiodev wav,id=a,path=/tmp/x.wav', '-audiodev'],
      ['-numa node,memdev=m', '-numa'],
      ['-device loader,file=/tmp/x', '-device'],
      ['-device loader,file=/tmp/x', 'loader'],
      ['-device driver=loader,file=/tmp/x', 'loader'],
      ['-device virtio-9p-pci,fsdev=f,mount_tag=r', 'virtio-9p-pci'],
      ['-device vhost-user-blk-pci,chardev=c', 'vhost-user-blk-pci'],
      ['-device vfio-pci,host=00:01.0', 'vfio-pci'],
      ['-device ivshmem-plain,memdev=m', 'ivshmem-plain'],
      ['-device e1000,romfile=/etc/shadow', 'romfile'],
      ['-device e1000,netdev=gns3-0', 'netdev'],
      ['-device isa-serial,chardev=qmp', 'chardev'],
      ['-device ide-hd,drive=drive0', 'ide-hd'],
      ['-device virtio-blk-pci,drive=drive0', 'virtio-blk-pci'],
      ['-device {"driver":"loader","file":"/tmp/x"}', 'JSON'],
      ['-device e1000,file=/tmp/x', 'file='],
      ['-device e1000,driver=loader', 'loader'],
      ['-device e1000,driver=e1000', 'one device model'],
      ['-device e1000,mac=1;rm', 'mac='],
      ['-global e1000.romfile=/etc/shadow', '-global'],
      ['-global loader.file=/etc/shadow', '-global'],
      ['-global isa-serial.chardev=qmp', '-global'],
      ['-global driver=e1000,property=romfile,value=/etc/shadow', '-global'],
      ['-global e1000.romfile=,file=/x', '-global'],
      ['-bios /etc/shadow', '/etc/shadow'],
      ['-kernel ../../etc/shadow', '../../etc/shadow'],
      ['-initrd ../x', '../x'],
      ['/etc/shadow', '/etc/shadow'],
      ['disk.img', 'disk.img'],
      ['-cpu max /tmp/x.img', '/tmp/x.img'],
      ['-', "'-'"],
      ['--', "'--'"],
      ['-no-such-option', '-no-such-option'],
      ['-cpu', '-cpu needs a value'],
      ['-hasOwnProperty x', '-hasOwnProperty'],
      ['-__proto__ x', '-__proto__'],
      ['-sandbox on,spawn=allow,x=1', 'x='],
      ['-rtc base=$(id)', 'base='],
    ] as const) refused(options, named);
  });

  it('takes -bios, -kernel, -initrd and -dtb only as images in the images directory, and reports them for resolution', () => {
    const { args, images } = check('-kernel vmlinuz -initrd sub/initrd.img -bios /srv/images/bios.bin');
    assert.deepEqual(images, [{ index: 1, name: 'vmlinuz', option: '-kernel' }, { index: 3, name: 'sub/initrd.img', option: '-initrd' }, { index: 5, name: '/srv/images/bios.bin', option: '-bios' }]);
    assert.deepEqual(args, ['-kernel', 'vmlinuz', '-initrd', 'sub/initrd.img', '-bios', '/srv/images/bios.bin']);
  });

  it('parses words as QEMU reads argv: an option takes the next word whatever it is', () => {
    assert.deepEqual(parseQemuOptions('-append -plugin -cpu max'), [{ name: 'append', value: '-plugin' }, { name: 'cpu', value: 'max' }]);
    assert.deepEqual(parseQemuOptions(''), []);
  });

  it('holds template image names to relative names inside the images directory', () => {
    assert.equal(relativeImageName('a/b.img'), 'a/b.img');
    for (const bad of ['/etc/shadow', '../x', 'a/../../x', 'a\0b', '']) assert.throws(() => relativeImageName(bad), InvalidError, bad);
  });
});

describe('QEMU settings that reach the command line', () => {
  const policy = { images: store, unsafeOptions: false };
  const settings = (change: Record<string, unknown>) => ({ ...defaultSettings('00000000-0000-0000-0000-000000000000'), ...change });

  it('refuses adapter models, disk interfaces and binaries that are not what they claim', () => {
    for (const [change, named] of [
      [{ adapter_type: 'e1000,romfile=/etc/shadow' }, 'adapter_type'],
      [{ adapter_type: 'loader' }, 'adapter_type'],
      [{ custom_adapters: [{ adapter_number: 0, adapter_type: 'e1000,netdev=x' }] }, 'adapter_type'],
      [{ hda_disk_interface: 'ide,file=/etc/shadow' }, 'hda_disk_interface'],
      [{ qemu_path: '/tmp/evil' }, 'qemu_path'],
      [{ options: '-plugin file=x.so' }, '-plugin'],
      [{ kernel_command_line: 'console=ttyS0\0x' }, 'kernel_command_line'],
      [{ options: '-append a\0b' }, 'options'],
      [{ custom_adapters: [{ adapter_number: 0, port_name: 'e\0' }] }, 'custom_adapters'],
    ] as const) {
      assert.throws(() => checkCommandLineValues('R1', settings(change), policy), (err: Error) => err instanceof InvalidError && err.message.includes(named), JSON.stringify(change));
    }
    assert.throws(() => checkCommandLineValues('R\0', settings({}), policy), /name holds a NUL/);
    checkCommandLineValues('R1', settings({ adapter_type: 'virtio-net-pci', hda_disk_interface: 'virtio', qemu_path: '/usr/bin/qemu-system-x86_64' }), policy);
  });

  it('at start, refuses with a 409 naming the option; qemu_unsafe_options passes everything through', async () => {
    const s = settings({ options: '-pidfile /tmp/x' });
    await assert.rejects(startCommand('R1', s, policy, process.env), (err: Error) => err instanceof ConflictError && err.message.includes('-pidfile'));
    // A qemu_path is only another name of the qemu-system-* on PATH, never a program a project brought along.
    const dir = await mkdtemp(join(tmpdir(), 'emuctl-qemu-path-'));
    try {
      await writeFile(join(dir, 'qemu-system-x86_64'), '#!/bin/sh\n', { mode: 0o755 });
      await assert.rejects(startCommand('R1', settings({ qemu_path: join(dir, 'qemu-system-x86_64') }), policy, process.env), (err: Error) => err instanceof ConflictError && err.message.includes('qemu_path'));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    assert.deepEqual((await startCommand('R1', s, { images: store, unsafeOptions: true }, process.env)).options, ['-pidfile', '/tmp/x']);
  });

  describe('images named by options', () => {
    let dir: string;
    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'emuctl-qemu-options-'));
      await mkdir(join(dir, 'images'));
      await writeFile(join(dir, 'images', 'vmlinuz'), 'k');
      await writeFile(join(dir, 'secret'), 's');
      await symlink(join(dir, 'secret'), join(dir, 'images', 'link-out'));
      await symlink(join(dir, 'images', 'vmlinuz'), join(dir, 'images', 'link-in'));
    });
    after(() => rm(dir, { recursive: true, force: true }));

    it('resolves them inside the images directory, never through a link out of it', async () => {
      const images = new ImageStore(join(dir, 'images'), 1);
      const p = { images, unsafeOptions: false };
      assert.deepEqual((await startCommand('R1', settings({ options: '-kernel vmlinuz -initrd link-in' }), p, process.env)).options, ['-kernel', join(dir, 'images', 'vmlinuz'), '-initrd', join(dir, 'images', 'vmlinuz')]);
      await assert.rejects(startCommand('R1', settings({ options: '-kernel link-out' }), p, process.env), (err: Error) => err instanceof ConflictError && /link-out/.test(err.message));
      await assert.rejects(startCommand('R1', settings({ options: '-kernel missing' }), p, process.env), (err: Error) => err instanceof ConflictError && /missing/.test(err.message));
      await assert.rejects(images.existing('link-out', 'bios image'), InvalidError);
    });
  });
});
