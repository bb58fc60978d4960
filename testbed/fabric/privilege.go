package fabric

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/vishvananda/netlink"
	"github.com/vishvananda/netns"
	"golang.org/x/sys/unix"
)

// ErrPrivilege is wrapped by every error that says the process lacks the
// privilege to build a fabric.
var ErrPrivilege = errors.New("not privileged")

// CheckPrivileges says whether this process may build a fabric: it needs
// CAP_NET_ADMIN (links, addresses, qdiscs) and CAP_SYS_ADMIN (creating,
// entering and bind-mounting network namespaces), which root has, and write
// access to /run/netns. It returns nil, or an error wrapping ErrPrivilege that
// names what is missing. It changes nothing.
func CheckPrivileges() error {
	eff, err := effectiveCaps()
	if err != nil {
		return fmt.Errorf("fabric: read this process's capabilities: %w", err)
	}
	var missing []string
	for _, c := range []struct {
		bit  uint
		name string
	}{{unix.CAP_NET_ADMIN, "CAP_NET_ADMIN"}, {unix.CAP_SYS_ADMIN, "CAP_SYS_ADMIN"}} {
		if eff&(1<<c.bit) == 0 {
			missing = append(missing, c.name)
		}
	}
	if len(missing) == 0 && eff&(1<<unix.CAP_DAC_OVERRIDE) == 0 {
		// Capabilities without root: the namespace files still need a
		// writable directory.
		dir := netnsDir
		if _, err := os.Stat(dir); err != nil {
			dir = "/run"
		}
		if err := unix.Faccessat(unix.AT_FDCWD, dir, unix.W_OK, unix.AT_EACCESS); err != nil {
			missing = append(missing, "write access to "+dir)
		}
	}
	if len(missing) == 0 {
		return nil
	}
	return fmt.Errorf("fabric: %w: building the emulated network needs CAP_NET_ADMIN and CAP_SYS_ADMIN, which root has (run it with sudo); this process (uid %d) lacks %s",
		ErrPrivilege, os.Geteuid(), strings.Join(missing, " and "))
}

// effectiveCaps reads the calling thread's effective capability set.
func effectiveCaps() (uint64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "CapEff:"); ok {
			return strconv.ParseUint(strings.TrimSpace(v), 16, 64)
		}
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New("no CapEff line in /proc/self/status")
}

// Features is what the running kernel offers a fabric.
type Features struct {
	// Qdiscs lists, sorted, the queueing disciplines the kernel accepted
	// among those probed (see Available).
	Qdiscs []string `json:"qdiscs"`
}

// Has says whether the kernel offers the qdisc kind.
func (f Features) Has(kind string) bool { return slices.Contains(f.Qdiscs, kind) }

// probedQdiscs are the qdisc kinds Available tries: the shapers and queues a
// fabric can use, and the ones people reach for first when emulating
// networks, so that a report says plainly which of them a kernel lacks.
var probedQdiscs = []string{"bfifo", "cake", "clsact", "fq", "fq_codel", "htb", "ingress", "netem", "pfifo", "sfq", "tbf"}

// Available finds which qdiscs the kernel offers by adding each to a veth in
// a scratch network namespace that only this call refers to, so the kernel
// frees it, and everything in it, when the call returns, even if the process
// dies. A kernel that can load modules may load a qdisc's module on request.
func Available() (Features, error) {
	if err := CheckPrivileges(); err != nil {
		return Features{}, err
	}
	scratch, err := newScratchNetns()
	if err != nil {
		return Features{}, err
	}
	defer scratch.Close()
	var f Features
	err = inNetns(scratch, func() error {
		veth := &netlink.Veth{LinkAttrs: netlink.LinkAttrs{Name: "probe0"}, PeerName: "probe1"}
		if err := netlink.LinkAdd(veth); err != nil {
			return fmt.Errorf("fabric: add a veth pair in a scratch namespace: %w", err)
		}
		link, err := netlink.LinkByName("probe0")
		if err != nil {
			return err
		}
		for _, kind := range probedQdiscs {
			q := &netlink.GenericQdisc{QdiscType: kind, QdiscAttrs: netlink.QdiscAttrs{
				LinkIndex: link.Attrs().Index, Parent: netlink.HANDLE_ROOT, Handle: netlink.MakeHandle(1, 0)}}
			if kind == "ingress" || kind == "clsact" {
				q.Parent = netlink.HANDLE_INGRESS
				q.Handle = netlink.MakeHandle(0xffff, 0)
			}
			// The kernel answers ENOENT for an unknown kind before it looks
			// at any option; any other answer means the kind exists, even if
			// it refuses to start without options.
			err := netlink.QdiscAdd(q)
			if errors.Is(err, unix.ENOENT) {
				continue
			}
			f.Qdiscs = append(f.Qdiscs, kind)
			if err == nil {
				netlink.QdiscDel(q)
			}
		}
		return nil
	})
	return f, err
}

// newScratchNetns creates an unnamed network namespace and returns the only
// handle to it: closing the handle frees it.
func newScratchNetns() (netns.NsHandle, error) {
	h, err := onNewNetns(func() (netns.NsHandle, error) {
		h, err := netns.New()
		if err != nil {
			return h, fmt.Errorf("fabric: create a scratch network namespace: %w", err)
		}
		return h, nil
	})
	if err != nil {
		h.Close()
		return netns.None(), err
	}
	return h, nil
}
