package analyze

// PIDs index flat tables below densePIDs (Linux's PID_MAX_LIMIT, 2^22):
// a lookup per event is two loads instead of a map's hashing. A trace may
// name any int32, so the rest go to maps.
const (
	densePIDs = 1 << 22
	pageBits  = 10
)

// pidTable maps a PID to the index of its current task record. Its pages
// of 1024 PIDs are freed when none of their PIDs has a task, so a long
// run whose PIDs only grow (the simulator's) holds pages for the PIDs
// alive, not for every PID it used.
type pidTable struct {
	pages [][]int32 // PID>>pageBits → page of index+1 (0: none)
	live  []int32   // tasks in each page
	other map[int32]int
}

func (p *pidTable) get(pid int32) (int, bool) {
	if uint32(pid) >= densePIDs {
		i, ok := p.other[pid]
		return i, ok
	}
	n := int(pid >> pageBits)
	if n >= len(p.pages) || p.pages[n] == nil {
		return 0, false
	}
	v := p.pages[n][pid&(1<<pageBits-1)]
	return int(v) - 1, v != 0
}

// set maps pid to i, over any mapping it had.
func (p *pidTable) set(pid int32, i int) {
	if uint32(pid) >= densePIDs {
		if p.other == nil {
			p.other = map[int32]int{}
		}
		p.other[pid] = i
		return
	}
	n := int(pid >> pageBits)
	for n >= len(p.pages) {
		p.pages, p.live = append(p.pages, nil), append(p.live, 0)
	}
	if p.pages[n] == nil {
		p.pages[n] = make([]int32, 1<<pageBits)
	}
	v := &p.pages[n][pid&(1<<pageBits-1)]
	if *v == 0 {
		p.live[n]++
	}
	*v = int32(i) + 1
}

func (p *pidTable) del(pid int32) {
	if uint32(pid) >= densePIDs {
		delete(p.other, pid)
		return
	}
	n := int(pid >> pageBits)
	if n >= len(p.pages) || p.pages[n] == nil {
		return
	}
	v := &p.pages[n][pid&(1<<pageBits-1)]
	if *v == 0 {
		return
	}
	*v = 0
	if p.live[n]--; p.live[n] == 0 {
		p.pages[n] = nil
	}
}

// pidSet is the set of PIDs seen: a bit each below densePIDs (at most
// 512 KiB, for the highest PID seen).
type pidSet struct {
	bits  []uint64
	other map[int32]bool
}

// add puts pid in the set and says whether it was new.
func (s *pidSet) add(pid int32) bool {
	if uint32(pid) >= densePIDs {
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
