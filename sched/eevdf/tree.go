package eevdf

import "math"

// timeline is a queue's set of waiting entities (never curr), the kernel's
// augmented red-black tree: ordered by virtual deadline, equal deadlines in
// insertion order (the kernel inserts them to the right), and every node
// caching its subtree's smallest vruntime and its smallest and largest
// slice. The cached minimum vruntime is what makes the pick logarithmic:
// "does this subtree hold an eligible entity?" is one comparison of that
// minimum against V.
//
// It is an AVL tree whose nodes are the entities themselves (no allocation
// per operation). Keys are unique — (deadline, insertion number) — so an
// entity is found by descending on its key; a queued entity's deadline
// never changes while it is in the tree (only curr's does, and curr is not
// in it), and every other change removes and reinserts it.
type timeline struct {
	root  *entity
	first *entity // leftmost: the earliest deadline
	n     int
	seq   uint64
}

// node is the tree linkage embedded in an entity, with the fields a
// descent reads together.
type node struct {
	left, right *entity
	deadline    uint64 // the key (an entity field, here for locality)
	seq         uint64 // insertion number: FIFO among equal deadlines
	// Subtree aggregates (min_vruntime, min_slice, max_slice).
	minV               uint64
	minSlice, maxSlice int64
	height             int32
	inTree             bool
}

// less is the tree order: deadline (compared wrap-safely, as the kernel's
// entity_before), then insertion.
func less(a, b *entity) bool {
	if d := int64(a.deadline - b.deadline); d != 0 {
		return d < 0
	}
	return a.seq < b.seq
}

func height(e *entity) int32 {
	if e == nil {
		return 0
	}
	return e.height
}

// pull recomputes e's height and aggregates from its children. The two
// children are written out, in locals, and e is written once: every
// insertion, removal and rotation pulls, and the loop over a two-element
// array with e's fields updated in it cost a third of EEVDF's tree work.
func (e *entity) pull() {
	l, r := e.left, e.right
	var h int32
	minV, minS, maxS := e.vruntime, e.slice, e.slice
	if l != nil {
		h = l.height
		if int64(l.minV-minV) < 0 {
			minV = l.minV
		}
		minS, maxS = min(minS, l.minSlice), max(maxS, l.maxSlice)
	}
	if r != nil {
		h = max(h, r.height)
		if int64(r.minV-minV) < 0 {
			minV = r.minV
		}
		minS, maxS = min(minS, r.minSlice), max(maxS, r.maxSlice)
	}
	e.height, e.minV, e.minSlice, e.maxSlice = h+1, minV, minS, maxS
}

func rotateRight(n *entity) *entity {
	l := n.left
	n.left, l.right = l.right, n
	n.pull()
	l.pull()
	return l
}

func rotateLeft(n *entity) *entity {
	r := n.right
	n.right, r.left = r.left, n
	n.pull()
	r.pull()
	return r
}

// balance restores the AVL condition at n (children already balanced).
func balance(n *entity) *entity {
	n.pull()
	switch bf := height(n.left) - height(n.right); {
	case bf > 1:
		if height(n.left.left) < height(n.left.right) {
			n.left = rotateLeft(n.left)
		}
		return rotateRight(n)
	case bf < -1:
		if height(n.right.right) < height(n.right.left) {
			n.right = rotateRight(n.right)
		}
		return rotateLeft(n)
	}
	return n
}

// rebalance balances n after a change below it and reports whether the
// subtree's height or aggregates changed: if not, nothing above needs to
// be recomputed, which saves most of the work of an insert or removal.
func rebalance(n *entity) (*entity, bool) {
	h, mv, mins, maxs := n.height, n.minV, n.minSlice, n.maxSlice
	r := balance(n)
	return r, r.height != h || r.minV != mv || r.minSlice != mins || r.maxSlice != maxs
}

func insertAt(n, e *entity) (*entity, bool) {
	if n == nil {
		e.pull()
		return e, true
	}
	var changed bool
	if less(e, n) {
		n.left, changed = insertAt(n.left, e)
	} else {
		n.right, changed = insertAt(n.right, e)
	}
	if !changed {
		return n, false
	}
	return rebalance(n)
}

// removeMin detaches the leftmost node of n's subtree.
func removeMin(n *entity) (rest, m *entity, changed bool) {
	if n.left == nil {
		return n.right, n, true
	}
	n.left, m, changed = removeMin(n.left)
	if !changed {
		return n, m, false
	}
	rest, changed = rebalance(n)
	return rest, m, changed
}

func removeAt(n, e *entity) (*entity, bool) {
	if n == nil {
		panic("eevdf: removing an entity that is not in the tree")
	}
	if n == e {
		l, r := n.left, n.right
		n.left, n.right = nil, nil
		if l == nil {
			return r, true
		}
		if r == nil {
			return l, true
		}
		// The successor takes e's place; above it nothing changes
		// unless the subtree's height or aggregates did.
		h, mv, mins, maxs := n.height, n.minV, n.minSlice, n.maxSlice
		r, m, _ := removeMin(r)
		m.left, m.right = l, r
		m = balance(m)
		return m, m.height != h || m.minV != mv || m.minSlice != mins || m.maxSlice != maxs
	}
	var changed bool
	if less(e, n) {
		n.left, changed = removeAt(n.left, e)
	} else {
		n.right, changed = removeAt(n.right, e)
	}
	if !changed {
		return n, false
	}
	return rebalance(n)
}

// fixAt refreshes the aggregates on the path to e after e's slice changed
// in place (a group entity taking its queue's new shortest slice).
func fixAt(n, e *entity) {
	if n != e {
		if less(e, n) {
			fixAt(n.left, e)
		} else {
			fixAt(n.right, e)
		}
	}
	n.pull()
}

func (t *timeline) insert(e *entity) {
	t.seq++
	e.seq, e.left, e.right, e.inTree = t.seq, nil, nil, true
	t.root, _ = insertAt(t.root, e)
	t.n++
	if t.first == nil || less(e, t.first) {
		t.first = e
	}
}

func (t *timeline) remove(e *entity) {
	t.root, _ = removeAt(t.root, e)
	e.inTree = false
	t.n--
	if t.first == e {
		t.first = leftmost(t.root)
	}
}

func (t *timeline) fix(e *entity) { fixAt(t.root, e) }

func leftmost(n *entity) *entity {
	if n == nil {
		return nil
	}
	for n.left != nil {
		n = n.left
	}
	return n
}

// minSlice and maxSlice of the tree; MaxInt64 / 0 when empty.
func (t *timeline) minSlice() int64 {
	if t.root == nil {
		return math.MaxInt64
	}
	return t.root.minSlice
}

func (t *timeline) maxSlice() int64 {
	if t.root == nil {
		return 0
	}
	return t.root.maxSlice
}

// walk calls f for every entity in tree order (for checks).
func (t *timeline) walk(f func(*entity) error) error {
	var rec func(n *entity) error
	rec = func(n *entity) error {
		if n == nil {
			return nil
		}
		if err := rec(n.left); err != nil {
			return err
		}
		if err := f(n); err != nil {
			return err
		}
		return rec(n.right)
	}
	return rec(t.root)
}
