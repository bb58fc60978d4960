package network

// entTable finds the count entry of a (link, group) pair (entKey). A
// flow joining a group looks up one pair per link of its path, and with
// thousands of pairs live a Go map's hashing and probing cost more than
// the rest of the join. It is a table of open addressing with linear
// probing, at most half full; it is only looked up, never iterated, so
// its layout cannot move a result.
type entTable struct {
	slots []entSlot
	n     int  // pairs held
	shift uint // 64 - log2(len(slots))
}

type entSlot struct {
	key uint64 // entEmpty if free
	e   int32
}

// entEmpty marks a free slot: no pair has it, links being non-negative.
const entEmpty = ^uint64(0)

// home returns the slot a key hashes to (Fibonacci hashing).
func (t *entTable) home(key uint64) int {
	return int((key * 0x9e3779b97f4a7c15) >> t.shift)
}

// get returns the entry of key, if held.
func (t *entTable) get(key uint64) (int32, bool) {
	if t.n == 0 {
		return 0, false
	}
	mask := len(t.slots) - 1
	for i := t.home(key); ; i = (i + 1) & mask {
		switch s := &t.slots[i]; s.key {
		case key:
			return s.e, true
		case entEmpty:
			return 0, false
		}
	}
}

// put adds key, which the table does not hold, with entry e.
func (t *entTable) put(key uint64, e int32) {
	if 2*(t.n+1) > len(t.slots) {
		t.grow()
	}
	mask := len(t.slots) - 1
	i := t.home(key)
	for t.slots[i].key != entEmpty {
		i = (i + 1) & mask
	}
	t.slots[i] = entSlot{key, e}
	t.n++
}

// del removes key, which the table holds, closing the gap behind it so
// that every other key stays reachable from its home.
func (t *entTable) del(key uint64) {
	mask := len(t.slots) - 1
	i := t.home(key)
	for t.slots[i].key != key {
		i = (i + 1) & mask
	}
	for j := i; ; {
		j = (j + 1) & mask
		k := t.slots[j].key
		if k == entEmpty {
			break
		}
		// The key at j may move back to i unless its home lies
		// cyclically in (i, j].
		if h := t.home(k); (i < j && i < h && h <= j) || (j < i && (i < h || h <= j)) {
			continue
		}
		t.slots[i] = t.slots[j]
		i = j
	}
	t.slots[i].key = entEmpty
	t.n--
}

// grow doubles the table (to 1024 slots at first) and re-places its keys.
func (t *entTable) grow() {
	old := t.slots
	size := max(2*len(old), 1024)
	t.slots = make([]entSlot, size)
	for i := range t.slots {
		t.slots[i].key = entEmpty
	}
	t.shift = 64
	for s := size; s > 1; s >>= 1 {
		t.shift--
	}
	t.n = 0
	for _, s := range old {
		if s.key != entEmpty {
			t.put(s.key, s.e)
		}
	}
}
