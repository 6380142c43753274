package eevdf

import (
	"fmt"
	"math"
)

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
//
// While the queue is short (fewer than runCap entities) a sorted run
// holds them instead, with the three aggregates over the whole run: a
// queue of a CPU or two of load is a handful of entities, and the tree's
// rebalancing and pulls on every insertion and removal were a fifth of
// eevdf-6.18's instructions at 1,000 tasks on one CPU, where shifting a
// few pointers and scanning for the first eligible entity cost less. It
// moves to the tree when an insertion would fill the run and back when a
// removal leaves fewer than runMin; the order is the same total order
// in both, so the form changes nothing a pick returns.
type timeline struct {
	root  *entity
	first *entity // leftmost: the earliest deadline
	n     int
	seq   uint64
	// big: the entities are in the tree; else in run[:n], in order, and
	// minV, minS and maxS are the run's aggregates (n > 0).
	big        bool
	minV       uint64
	minS, maxS int64
	run        [runCap]*entity
}

// runCap bounds the run; runMin is the length below which the tree's
// entities go back to it.
const runCap, runMin = 32, 12

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
	if !t.big && t.n == runCap {
		t.toTree()
	}
	if t.big {
		t.root, _ = insertAt(t.root, e)
	} else {
		t.runInsert(e)
	}
	t.n++
	if t.first == nil || less(e, t.first) {
		t.first = e
	}
}

func (t *timeline) remove(e *entity) {
	e.inTree = false
	t.n--
	if !t.big {
		t.runRemove(e)
		t.first = t.run[0] // nil when empty
		return
	}
	t.root, _ = removeAt(t.root, e)
	if t.n < runMin {
		t.toRun()
		t.first = t.run[0]
		return
	}
	if t.first == e {
		t.first = leftmost(t.root)
	}
}

func (t *timeline) fix(e *entity) {
	if t.big {
		fixAt(t.root, e)
		return
	}
	t.runAggregates()
}

// runInsert puts e in the run (which has room) after every entity before
// it, shifting the later ones.
func (t *timeline) runInsert(e *entity) {
	i := t.n
	for i > 0 && less(e, t.run[i-1]) {
		t.run[i] = t.run[i-1]
		i--
	}
	t.run[i] = e
	if t.n == 0 {
		t.minV, t.minS, t.maxS = e.vruntime, e.slice, e.slice
		return
	}
	if int64(e.vruntime-t.minV) < 0 {
		t.minV = e.vruntime
	}
	t.minS, t.maxS = min(t.minS, e.slice), max(t.maxS, e.slice)
}

// runRemove takes e out of the run (t.n already counts it out) and
// recomputes the aggregates if e held one of them.
func (t *timeline) runRemove(e *entity) {
	i := 0
	for t.run[i] != e {
		i++
	}
	copy(t.run[i:t.n], t.run[i+1:t.n+1])
	t.run[t.n] = nil
	if e.vruntime == t.minV || e.slice == t.minS || e.slice == t.maxS {
		t.runAggregates()
	}
}

// runAggregates recomputes the run's minV, minS and maxS.
func (t *timeline) runAggregates() {
	if t.n > 0 {
		t.minV, t.minS, t.maxS = t.runAgg()
	}
}

// runAgg computes the aggregates of a run that is not empty.
func (t *timeline) runAgg() (minV uint64, minS, maxS int64) {
	e := t.run[0]
	minV, minS, maxS = e.vruntime, e.slice, e.slice
	for _, e := range t.run[1:t.n] {
		if int64(e.vruntime-minV) < 0 {
			minV = e.vruntime
		}
		minS, maxS = min(minS, e.slice), max(maxS, e.slice)
	}
	return minV, minS, maxS
}

// toTree moves the run's entities, in order, to the tree.
func (t *timeline) toTree() {
	t.big = true
	for i, e := range t.run[:t.n] {
		e.left, e.right = nil, nil
		t.root, _ = insertAt(t.root, e)
		t.run[i] = nil
	}
}

// toRun moves the tree's entities to the run (t.n of them, fewer than
// runMin).
func (t *timeline) toRun() {
	i := 0
	t.walk(func(e *entity) error {
		t.run[i] = e
		i++
		return nil
	})
	for _, e := range t.run[:i] {
		e.left, e.right = nil, nil
	}
	t.root, t.big = nil, false
	t.runAggregates()
}

// minVruntime is the smallest vruntime of the waiting entities, if any.
func (t *timeline) minVruntime() (uint64, bool) {
	if t.big {
		return t.root.minV, true
	}
	return t.minV, t.n > 0
}

// firstEligible is the earliest-deadline entity whose vruntime q finds
// eligible, or nil: in the tree, every subtree left of a node has
// earlier deadlines, so the descent goes left while the left subtree
// holds an eligible vruntime; in the run, the first eligible one.
func (t *timeline) firstEligible(q *cfsRQ) *entity {
	if !t.big {
		s, w := q.sums()
		for _, e := range t.run[:t.n] {
			if s >= int64(e.vruntime-q.v0)*w {
				return e
			}
		}
		return nil
	}
	for n := t.root; n != nil; {
		if l := n.left; l != nil && q.vruntimeEligible(l.minV) {
			n = l
			continue
		}
		if q.eligible(n) {
			return n
		}
		n = n.right
	}
	return nil
}

func leftmost(n *entity) *entity {
	if n == nil {
		return nil
	}
	for n.left != nil {
		n = n.left
	}
	return n
}

// minSlice and maxSlice of the timeline; MaxInt64 / 0 when empty.
func (t *timeline) minSlice() int64 {
	switch {
	case t.n == 0:
		return math.MaxInt64
	case !t.big:
		return t.minS
	}
	return t.root.minSlice
}

func (t *timeline) maxSlice() int64 {
	switch {
	case t.n == 0:
		return 0
	case !t.big:
		return t.maxS
	}
	return t.root.maxSlice
}

// walk calls f for every entity in order (for checks).
func (t *timeline) walk(f func(*entity) error) error {
	if !t.big {
		for _, e := range t.run[:t.n] {
			if err := f(e); err != nil {
				return err
			}
		}
		return nil
	}
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

// checkForm verifies what each form keeps beside the order (for checks):
// the tree's leftmost is first, and no form change is due; the run's
// aggregates are its entities', and past its end it holds nothing.
func (t *timeline) checkForm() error {
	if t.big {
		switch {
		case t.first != leftmost(t.root):
			return fmt.Errorf("the tree's leftmost is not first")
		case t.n < runMin:
			return fmt.Errorf("a tree of %d entities, below runMin", t.n)
		}
		return nil
	}
	if t.root != nil {
		return fmt.Errorf("a run with a tree")
	}
	for _, e := range t.run[t.n:] {
		if e != nil {
			return fmt.Errorf("an entity past the run's end")
		}
	}
	if t.n == 0 {
		return nil
	}
	if minV, minS, maxS := t.runAgg(); t.minV != minV || t.minS != minS || t.maxS != maxS {
		return fmt.Errorf("stale run aggregates")
	}
	return nil
}
