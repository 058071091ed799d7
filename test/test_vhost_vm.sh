#!/usr/bin/env bash
# net_vhost against a VM (driver and interop suites): Linux's own
# virtio-net driver in a QEMU guest, attached to lr-pktgen's net_vhost port
# over vhost-user, the guest's memory a shared memfd.
#
#   test_vhost_vm.sh BUILD_DIR
#
# The guest is Debian's kernel and its virtio modules, which scripts/setup.sh
# --tests takes from the kernel package into /var/cache/linerate/vm/kernel
# (LR_VM_DIR), and an initramfs made here: busybox-static and an /init that
# brings eth0 up as 10.9.0.2/24 and prints what it saw on the serial
# console. QEMU runs under software emulation (TCG: nested KVM is not
# dependable on these machines) with MSI-X off (vectors=0: QEMU 7.2's
# vhost start under TCG crashes in its MSI-X notifiers otherwise) and no
# option ROM.
#
# Cases, for a guest on split rings (QEMU's default) and one on packed
# rings (packed=on), the features its driver set checked for the layout:
#   ping     the guest pings lr-pktgen (--ip 0:10.9.0.1/24, answering ARP
#            and echo requests): 20 of 64 bytes and 10 of 1514-byte frames
#            (mergeable receive buffers), every one answered; lr-pktgen
#            counts the ARP request and the 30 echo requests it answered
#   udp      then lr-pktgen (started idle, told "start" over its control
#            socket once the guest has pinged) resolves the guest by ARP and
#            sends N UDP frames to a port nobody listens on at a rate a
#            guest under emulation takes: the guest's kernel counts every
#            one (Udp NoPorts), and lr-pktgen's summary says N sent
#   clean    the guest powers off: QEMU exits 0, lr-pktgen sees the
#            frontend go and ends with no mbuf in use
# Nothing waits a fixed time: console lines and program output, each with
# a bound only a hang reaches. Exit 0 passed, 1 failed, 77 skipped.
set -u

BUILD=${1:?usage: test_vhost_vm.sh BUILD_DIR}
PKTGEN=$BUILD/apps/pktgen/lr-pktgen
CTL=$BUILD/apps/pktgen/lr-pktgen-ctl
KDIR=${LR_VM_DIR:-/var/cache/linerate/vm}/kernel
MODULES="virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci failover net_failover virtio_net"
N=3000
# shellcheck source=test/lr_test.sh
. "$(dirname "$0")/lr_test.sh"

command -v qemu-system-x86_64 >/dev/null ||
	skip "no qemu-system-x86_64 (apt install qemu-system-x86)"
[ -x /bin/busybox ] || skip "no /bin/busybox (apt install busybox-static)"
[ -s "$KDIR/vmlinuz" ] ||
	skip "no guest kernel in $KDIR (scripts/setup.sh --tests fetches it)"
for m in $MODULES; do
	[ -s "$KDIR/$m.ko" ] || skip "no $m.ko in $KDIR"
done
if [ ! -x "$PKTGEN" ] || [ ! -x "$CTL" ]; then
	skip "lr-pktgen not built"
fi

TMP=$(mktemp -d) || exit 1
P=vhvm$$
GEN=''
QEMU=''
# shellcheck disable=SC2317 # run at exit (lr_cleanup_traps)
cleanup() {
	[ -n "$QEMU" ] && kill -KILL "$QEMU" 2>/dev/null
	[ -n "$GEN" ] && kill -KILL "$GEN" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$TMP" "/var/run/linerate/$P" "/var/run/dpdk/$P"
}
lr_cleanup_traps cleanup

# The guest: busybox, the modules, /init (N from the kernel's command line).
R=$TMP/root
mkdir -p "$R/bin" "$R/lib" "$R/proc" "$R/sys" "$R/dev"
cp /bin/busybox "$R/bin/"
for m in $MODULES; do cp "$KDIR/$m.ko" "$R/lib/"; done
cat >"$R/init" <<EOF
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sys /sys
for m in $MODULES; do
	insmod /lib/\$m.ko || echo "GUEST: insmod \$m failed"
done
n=\$(sed -n 's/.*lr_n=\([0-9]*\).*/\1/p' /proc/cmdline)
ip link set lo up
ip link set eth0 up
ip addr add 10.9.0.2/24 dev eth0
echo "GUEST: eth0 \$(cat /sys/class/net/eth0/address) up"
echo "GUEST: ping64 \$(ping -c 20 -i 0.05 -W 30 10.9.0.1 | grep 'packets transmitted')"
echo "GUEST: ping1514 \$(ping -c 10 -i 0.05 -s 1472 -W 10 10.9.0.1 | grep 'packets transmitted')"
echo "GUEST: pinged"
noports() { awk '/^Udp:/ { if (++k == 2) print \$3 }' /proc/net/snmp; }
i=0
while [ "\$(noports)" -lt "\$n" ] && [ \$i -lt 1200 ]; do
	sleep 0.1
	i=\$((i + 1))
done
echo "GUEST: udp_noports \$(noports)"
poweroff -f
EOF
chmod +x "$R/init"
(cd "$R" && find . | /bin/busybox cpio -o -H newc 2>/dev/null) |
	gzip -1 >"$TMP/initrd.gz" || {
	echo "FAIL: cannot make the initramfs"
	exit 1
}

# guest LAYOUT DEVICE-OPTIONS: one guest's cases over that ring layout
# ("split": QEMU's default; "packed": packed=on), each line naming it.
guest() {
	local lay=$1 opts=$2 line got rc sent l3 feat what n k
	local sock=$TMP/$lay.sock con=$TMP/$lay.console log=$TMP/$lay.gen.log
	: >"$con"
	# lr-pktgen: the vhost-user server, idle until "start"; N frames at
	# 5 kpps; pmd:debug logs the features the guest sets
	if ! bg_start "$log" "waiting up to" "$PKTGEN" -l 0 --no-huge -m 256 \
		--file-prefix "$P" --log-level pmd:debug \
		--vdev "net_vhost0,iface=$sock" -- \
		--ip 0:10.9.0.1/24 --dst-ip 10.9.0.2 --dst-port 9 --count $N \
		--rate-pps 5000 --idle --ctl "$TMP/ctl.sock" --link-wait 300 \
		--resolve-tries 30; then
		fail "$lay: lr-pktgen did not start: $(tail -n 3 "$log")"
		return
	fi
	GEN=$BG
	qemu-system-x86_64 -accel tcg -m 256 -display none -no-reboot \
		-serial "file:$con" \
		-object memory-backend-memfd,id=mem,size=256M,share=on \
		-machine pc,memory-backend=mem \
		-chardev "socket,id=c0,path=$sock" \
		-netdev vhost-user,id=n0,chardev=c0 \
		-device "virtio-net-pci,netdev=n0,mac=52:54:00:4c:52:01,romfile=,vectors=0$opts" \
		-kernel "$KDIR/vmlinuz" -initrd "$TMP/initrd.gz" \
		-append "console=ttyS0 quiet panic=-1 lr_n=$N" \
		>"$TMP/$lay.qemu.log" 2>&1 </dev/null &
	QEMU=$!

	# ping: the guest's two lines, "N packets transmitted, N received"
	if ! lr_wait_line "$con" "GUEST: pinged" "$QEMU" 3000; then
		fail "$lay ping: the guest did not get through its pings: qemu: $(tail -n 2 "$TMP/$lay.qemu.log"); console: $(tr -d '\r' <"$con" | grep GUEST | tr '\n' ' ')"
	fi
	# the layout the guest's driver took (VIRTIO_F_RING_PACKED: bit 34)
	feat=$(sed -n 's/.*SET_FEATURES \(0x[0-9a-f]*\).*/\1/p' "$log" | tail -n 1)
	k=$(( (${feat:-0} >> 34) & 1 ))
	if [ -n "$feat" ] && [ "$k" = "$([ "$lay" = packed ] && echo 1 || echo 0)" ]; then
		pass "$lay: the guest's driver set features $feat"
	else
		fail "$lay: features '${feat:-none}' are not a $lay ring's"
	fi
	for k in ping64:20 ping1514:10; do
		what=${k%:*} n=${k#*:}
		line=$(tr -d '\r' <"$con" | grep "GUEST: $what ")
		if echo "$line" | grep -q "$n packets transmitted, $n packets received"; then
			pass "$lay ping: $line"
		else
			fail "$lay ping: want $n of $n answered: '${line:-no line}'"
		fi
	done

	# udp: lr-pktgen sends N frames once told; the guest counts them
	"$CTL" "$TMP/ctl.sock" start >"$TMP/start.out" 2>&1 ||
		fail "$lay udp: start: $(cat "$TMP/start.out")"
	if lr_wait_line "$con" "GUEST: udp_noports" "$QEMU" 3000; then
		got=$(tr -d '\r' <"$con" |
			sed -n 's/.*GUEST: udp_noports \([0-9]*\).*/\1/p')
		if [ "$got" = "$N" ]; then
			pass "$lay udp: the guest's kernel counted $got of $N UDP frames"
		else
			fail "$lay udp: the guest counted ${got:-none} of $N"
		fi
	else
		fail "$lay udp: no count from the guest"
	fi

	# clean: QEMU ends with the guest's poweroff; lr-pktgen ends clean
	wait "$QEMU"
	rc=$?
	QEMU=''
	if [ $rc -eq 0 ]; then
		pass "$lay clean: QEMU exited 0"
	else
		fail "$lay clean: QEMU exited $rc: $(tail -n 3 "$TMP/$lay.qemu.log")"
	fi
	"$CTL" "$TMP/ctl.sock" quit >/dev/null 2>&1 ||
		kill -INT "$GEN" 2>/dev/null
	BG=$GEN
	bg_stop INT
	rc=$?
	GEN=''
	sent=$(field tx "$log")
	l3=$(grep '^L3 port 0:' "$log")
	if [ $rc -eq 0 ] && [ "$sent" = "$N" ] &&
		echo "$l3" | grep -q "answered [1-9][0-9]* ARP requests, .* 30 echo requests" &&
		grep -q "^mbufs in use after stop: 0" "$log" &&
		grep -q "frontend disconnected" "$log"; then
		pass "$lay clean: lr-pktgen exit 0, sent $sent, '$l3', no mbuf in use"
	else
		fail "$lay clean: lr-pktgen exit $rc, sent ${sent:-?} of $N; $(tail -n 12 "$log" | tr '\n' ' ')"
	fi
}

guest split ""
guest packed ",packed=on"
exit "$failed"
