package fabric

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Offloads are switched off with the SIOCETHTOOL ioctl, what `ethtool -K`
// uses on kernels without ethtool netlink. Neither netlink package offers
// ethtool features, and a direct ioctl on a socket opened inside the
// namespace (the ioctl resolves the interface name in the socket's namespace)
// needs no `ethtool` binary on the host.

// ethtoolValue is struct ethtool_value from <linux/ethtool.h>.
type ethtoolValue struct {
	cmd  uint32
	data uint32
}

// ifreqPtr is struct ifreq with the union holding a pointer, as SIOCETHTOOL
// expects; unsafe.Pointer keeps the pointee alive for the collector.
type ifreqPtr struct {
	name [unix.IFNAMSIZ]byte
	data unsafe.Pointer
	_    [24 - unsafe.Sizeof(uintptr(0))]byte // pad the union to 24 bytes
}

// ethtool issues one ETHTOOL_G*/ETHTOOL_S* value command for iface on the
// socket fd and returns the value the kernel answered.
func ethtool(fd int, iface string, cmd, data uint32) (uint32, error) {
	v := ethtoolValue{cmd: cmd, data: data}
	var ifr ifreqPtr
	copy(ifr.name[:unix.IFNAMSIZ-1], iface)
	ifr.data = unsafe.Pointer(&v)
	_, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCETHTOOL, uintptr(unsafe.Pointer(&ifr)))
	runtime.KeepAlive(&v)
	if errno != 0 {
		return 0, errno
	}
	return v.data, nil
}

// offload is one segmentation offload: its name as ethtool prints it and
// its get and set commands.
type offload struct {
	name     string
	get, set uint32
}

// segmentationOffloads are the features that let a veth carry, and a qdisc
// queue, one 64 KB "packet" in place of dozens of frames.
var segmentationOffloads = []offload{
	{"tcp-segmentation-offload", unix.ETHTOOL_GTSO, unix.ETHTOOL_STSO},
	{"generic-segmentation-offload", unix.ETHTOOL_GGSO, unix.ETHTOOL_SGSO},
	{"generic-receive-offload", unix.ETHTOOL_GGRO, unix.ETHTOOL_SGRO},
}

// disableOffloads switches off segmentation offloads on iface, in the calling
// thread's network namespace, and checks that the kernel reports them off.
func disableOffloads(iface string) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("fabric: socket for ethtool: %w", err)
	}
	defer unix.Close(fd)
	for _, o := range segmentationOffloads {
		if _, err := ethtool(fd, iface, o.set, 0); err != nil {
			return fmt.Errorf("fabric: %s: turn %s off: %w", iface, o.name, err)
		}
		on, err := ethtool(fd, iface, o.get, 0)
		if err != nil {
			return fmt.Errorf("fabric: %s: read %s: %w", iface, o.name, err)
		}
		if on != 0 {
			return fmt.Errorf("fabric: %s: %s stays on", iface, o.name)
		}
	}
	return nil
}
