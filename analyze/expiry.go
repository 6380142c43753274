package analyze

// expiries holds the TimerExpiry marks waiting for their CallbackStart:
// (timer, seq) → Expected, as the map[timerKey]int64 it replaces did. A
// timer has one or two expiries in flight (the next expiry can come
// before a late callback starts), so each timer keeps its latest few in
// a slot (found through an idTable by timer number); only older ones (an
// expiry whose callback never came, a long overrun) go to a map, and the
// map is only looked at for a timer that has some there.
type expiries struct {
	timers idTable         // timer → index in slots, while it has expiries pending
	slots  []timerExpiries // by index; free ones listed in free
	free   []int32
	older  map[timerKey]int64 // never a key that is in its timer's slot
	n      int                // expiries pending
}

// inSlot is how many of a timer's expiries its slot holds.
const inSlot = 4

type timerExpiries struct {
	n     int32 // of e, in the order put
	spill int32 // the timer's entries in older
	e     [inSlot]pendingExpiry
}

type pendingExpiry struct{ seq, expected int64 }

type timerKey struct {
	timer int32
	seq   int64
}

// put records an expiry, over any with the same key.
func (x *expiries) put(timer int32, seq, expected int64) {
	s := x.slot(timer)
	for i := range s.n {
		if s.e[i].seq == seq {
			s.e[i].expected = expected
			return
		}
	}
	k := timerKey{timer, seq}
	if s.spill > 0 {
		if _, ok := x.older[k]; ok {
			x.older[k] = expected
			return
		}
	}
	x.n++
	if s.n == inSlot {
		// The oldest moves out: it is the least likely to be taken.
		if x.older == nil {
			x.older = map[timerKey]int64{}
		}
		x.older[timerKey{timer, s.e[0].seq}] = s.e[0].expected
		s.spill++
		copy(s.e[:], s.e[1:])
		s.n--
	}
	s.e[s.n] = pendingExpiry{seq, expected}
	s.n++
}

// take removes the expiry (timer, seq) and returns its Expected, if it
// was pending.
func (x *expiries) take(timer int32, seq int64) (int64, bool) {
	j, ok := x.timers.get(timer)
	if !ok {
		return 0, false
	}
	s := &x.slots[j]
	var v int64
	found := false
	for i := range s.n {
		if s.e[i].seq == seq {
			v, found = s.e[i].expected, true
			copy(s.e[i:], s.e[i+1:s.n])
			s.n--
			break
		}
	}
	if !found && s.spill > 0 {
		k := timerKey{timer, seq}
		if v, found = x.older[k]; found {
			delete(x.older, k)
			s.spill--
		}
	}
	if !found {
		return 0, false
	}
	x.n--
	if s.n == 0 && s.spill == 0 {
		x.timers.del(timer)
		x.free = append(x.free, int32(j))
	}
	return v, true
}

// slot returns timer's slot, giving it an empty one if it had none.
func (x *expiries) slot(timer int32) *timerExpiries {
	if j, ok := x.timers.get(timer); ok {
		return &x.slots[j]
	}
	var j int
	if k := len(x.free); k > 0 {
		j = int(x.free[k-1])
		x.free = x.free[:k-1]
	} else {
		j = len(x.slots)
		x.slots = append(x.slots, timerExpiries{})
	}
	x.slots[j] = timerExpiries{}
	x.timers.set(timer, int64(j))
	return &x.slots[j]
}

// len is the number of expiries pending.
func (x *expiries) len() int { return x.n }
