package analyze

// Ids (PIDs, timer numbers) index flat tables below denseIDs (Linux's
// PID_MAX_LIMIT, 2^22): a lookup per event is two loads instead of a
// map's hashing. A trace may name any int32, so the rest go to maps.
const (
	denseIDs = 1 << 22
	pageBits = 8
	pageLen  = 1 << pageBits
)

// idTable maps an id to an int64 (a timestamp, an index), as a
// map[int32]int64 would. Its pages of 256 ids are freed when none of
// their ids has a value, so a long run whose ids only grow (the
// simulator's PIDs and timer numbers) holds pages for the ids in use,
// not for every id it used. A few freed pages are kept for reuse: a
// timer whose one expiry comes and goes, or a PID that exits and is
// forked again, empties its page at every turn. (Not generic: Go's
// generic methods take a dictionary and get would no longer inline.)
type idTable struct {
	pages []*idPage // id>>pageBits → its page (nil: no value in it)
	spare []*idPage // emptied pages, all slots zero
	other map[int32]int64
	n     int // values held, pages and other
}

// maxSpare bounds the pages kept for reuse.
const maxSpare = 4

type idPage struct {
	live  int // values in the page
	slots [pageLen]idSlot
}

// idSlot keeps the value beside its presence, so a lookup touches one
// place.
type idSlot struct {
	v  int64
	ok bool
}

func (t *idTable) get(id int32) (int64, bool) {
	if n := uint(id) >> pageBits; n < uint(len(t.pages)) && t.pages[n] != nil {
		s := &t.pages[n].slots[id&(pageLen-1)]
		return s.v, s.ok
	}
	return t.getOther(id)
}

// getOther is get of an id without a page: beyond the pages, or at or
// above denseIDs (the map's).
func (t *idTable) getOther(id int32) (int64, bool) {
	if uint32(id) < denseIDs {
		return 0, false
	}
	v, ok := t.other[id]
	return v, ok
}

// set maps id to v, over any value it had.
func (t *idTable) set(id int32, v int64) {
	if uint32(id) >= denseIDs {
		if t.other == nil {
			t.other = map[int32]int64{}
		}
		if _, ok := t.other[id]; !ok {
			t.n++
		}
		t.other[id] = v
		return
	}
	n := int(id >> pageBits)
	for n >= len(t.pages) {
		t.pages = append(t.pages, nil)
	}
	p := t.pages[n]
	if p == nil {
		if k := len(t.spare); k > 0 {
			p = t.spare[k-1]
			t.spare = t.spare[:k-1]
		} else {
			p = new(idPage)
		}
		t.pages[n] = p
	}
	s := &p.slots[id&(pageLen-1)]
	if !s.ok {
		p.live++
		t.n++
	}
	*s = idSlot{v, true}
}

// del removes id's value, if it has one.
func (t *idTable) del(id int32) {
	if uint32(id) >= denseIDs {
		if _, ok := t.other[id]; ok {
			delete(t.other, id)
			t.n--
		}
		return
	}
	n := int(id >> pageBits)
	if n >= len(t.pages) || t.pages[n] == nil {
		return
	}
	p := t.pages[n]
	s := &p.slots[id&(pageLen-1)]
	if !s.ok {
		return
	}
	*s = idSlot{}
	t.n--
	if p.live--; p.live == 0 {
		t.pages[n] = nil
		if len(t.spare) < maxSpare {
			t.spare = append(t.spare, p)
		}
	}
}

// len is the number of ids with a value.
func (t *idTable) len() int { return t.n }

// clear removes every value.
func (t *idTable) clear() {
	if t.n == 0 {
		return
	}
	clear(t.pages)
	t.pages = t.pages[:0]
	t.other = nil
	t.n = 0
}

// pidSet is the set of PIDs seen: a bit each below denseIDs (at most
// 512 KiB, for the highest PID seen).
type pidSet struct {
	bits  []uint64
	other map[int32]bool
}

// add puts pid in the set and says whether it was new.
func (s *pidSet) add(pid int32) bool {
	if uint32(pid) >= denseIDs {
		if s.other == nil {
			s.other = map[int32]bool{}
		}
		old := s.other[pid]
		s.other[pid] = true
		return !old
	}
	w := int(pid >> 6)
	if w >= len(s.bits) {
		s.bits = append(s.bits, make([]uint64, max(w+1-len(s.bits), len(s.bits)/4))...)
	}
	m := uint64(1) << (uint(pid) & 63)
	old := s.bits[w]&m != 0
	s.bits[w] |= m
	return !old
}

// has says whether pid is in the set.
func (s *pidSet) has(pid int32) bool {
	if uint32(pid) >= denseIDs {
		return s.other[pid]
	}
	w := int(pid >> 6)
	return w < len(s.bits) && s.bits[w]&(uint64(1)<<(uint(pid)&63)) != 0
}
