package bench

import "testing"

// Set-up is linear in the model's size: the live heap after `check`'s work
// on a planar chain of 8000 bodies is at most 4.6 times that of 2000 (4 if
// linear; the dense SVD and the dense Gram work matrix this replaced made
// it 16), and the degrees of freedom are counted right.
func TestSetUpLinearInSize(t *testing.T) {
	var heap [2]float64
	for k, n := range []int{2000, 8000} {
		r, err := SizeRun(ChainXML(n, false))
		if err != nil {
			t.Fatal(err)
		}
		if r.DOF != n {
			t.Errorf("N = %d: %d degrees of freedom, want %d", n, r.DOF, n)
		}
		heap[k] = r.Heap
		t.Logf("N = %d: check %.3g s, 10 steps %.3g s, heap %.1f MB", n, r.Check.Seconds(), r.Steps.Seconds(), r.Heap/1e6)
	}
	if q := heap[1] / heap[0]; q > 4.6 {
		t.Errorf("heap grew %.2f times for 4 times the bodies", q)
	}
	r, err := SizeRun(ChainXML(1000, true))
	if err != nil {
		t.Fatal(err)
	}
	if r.DOF != 3000 {
		t.Errorf("spatial chain of 1000: %d degrees of freedom, want 3000", r.DOF)
	}
}
