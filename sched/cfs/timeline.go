package cfs

// timeline holds a queue's waiting entities (never curr) in the order of the
// kernel's red-black tree: by vruntime, and among equal vruntimes by
// insertion, because the kernel's insertion walks right on equal keys. CFS
// only ever asks for the leftmost entity, inserts and removes arbitrary ones
// (and, for compat yield, the rightmost), so an indexed binary heap keyed by
// (vruntime, insertion sequence) yields exactly the kernel's leftmost in
// O(log n) without allocating per operation.
type timeline struct {
	h   []*entity
	seq uint64
}

// less is the tree order. Comparing int64 differences keeps it right when
// the u64 virtual clock wraps, as the kernel's entity_before does.
func less(a, b *entity) bool {
	if d := int64(a.vruntime - b.vruntime); d != 0 {
		return d < 0
	}
	return a.seq < b.seq
}

func (t *timeline) len() int { return len(t.h) }

// leftmost returns the entity that the kernel's rb_leftmost caches, or nil.
func (t *timeline) leftmost() *entity {
	if len(t.h) == 0 {
		return nil
	}
	return t.h[0]
}

// rightmost returns the last entity in tree order (O(n); only compat yield
// asks for it).
func (t *timeline) rightmost() *entity {
	var r *entity
	for _, e := range t.h {
		if r == nil || less(r, e) {
			r = e
		}
	}
	return r
}

func (t *timeline) insert(e *entity) {
	t.seq++
	e.seq = t.seq
	e.idx = len(t.h)
	t.h = append(t.h, e)
	t.up(e.idx)
}

func (t *timeline) remove(e *entity) {
	i := e.idx
	n := len(t.h) - 1
	if i != n {
		t.swap(i, n)
	}
	t.h[n] = nil
	t.h = t.h[:n]
	e.idx = -1
	if i != n {
		if !t.down(i) {
			t.up(i)
		}
	}
}

// contains reports whether e is in this timeline (for invariant checks).
func (t *timeline) contains(e *entity) bool {
	return e.idx >= 0 && e.idx < len(t.h) && t.h[e.idx] == e
}

func (t *timeline) swap(i, j int) {
	t.h[i], t.h[j] = t.h[j], t.h[i]
	t.h[i].idx = i
	t.h[j].idx = j
}

func (t *timeline) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !less(t.h[i], t.h[p]) {
			return
		}
		t.swap(i, p)
		i = p
	}
}

func (t *timeline) down(i int) bool {
	start := i
	n := len(t.h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && less(t.h[r], t.h[l]) {
			m = r
		}
		if !less(t.h[m], t.h[i]) {
			break
		}
		t.swap(i, m)
		i = m
	}
	return i > start
}
