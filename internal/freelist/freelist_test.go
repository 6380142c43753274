package freelist

import "testing"

func TestList(t *testing.T) {
	type v struct{ a, b int }
	var l List[v]
	p, reused := l.Get()
	if reused || *p != (v{}) {
		t.Fatalf("empty list gave %+v, reused %v", *p, reused)
	}
	p.a, p.b = 1, 2
	l.Put(p)
	if !l.Has(p) || l.Len() != 1 {
		t.Fatal("a value put back is not in the list")
	}
	q, reused := l.Get()
	if q != p || !reused || *q != (v{}) {
		t.Fatalf("got %p %+v reused %v, want %p zeroed and reused", q, *q, reused, p)
	}
	if l.Has(p) {
		t.Fatal("a value handed out is still in the list")
	}
}
