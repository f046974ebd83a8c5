package solver_test

import (
	"math"
	"testing"
)

// Every single-bit flip of a serialised state (the heavy top after 0.25 s,
// mid-run: quaternions, predictor memory, factor anchor, counters; a
// walking body with stick–slip contacts: the contacts' discrete state) is
// either refused by UnmarshalBinary, or restores a state whose next 10 ms
// take a bounded number of steps (16 sub-steps at most for each step of the
// grid, the depth of the retries after a failed Newton iteration) (a flipped step counter or time once made
// the next step run for hours) and leave it finite or fail cleanly.
func TestStateBitFlips(t *testing.T) {
	for _, ex := range []string{"heavy-top", "seed003-case1"} {
		t.Run(ex, func(t *testing.T) { stateBitFlips(t, ex) })
	}
}

func stateBitFlips(t *testing.T, ex string) {
	m := exLoad(t, ex, nil)
	s := exInit(t, m)
	exAdvance(t, m, s, 0.25)
	blob, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	r := m.NewState()
	refused, accepted := 0, 0
	for bit := 0; bit < 8*len(blob); bit++ {
		b := append([]byte(nil), blob...)
		b[bit/8] ^= 1 << (bit % 8)
		if err := r.UnmarshalBinary(b); err != nil {
			refused++
			continue
		}
		accepted++
		if !(math.Abs(r.T-0.25) < 1) {
			continue // a flip of the time's low bits stays near it; larger ones are refused or stepped below
		}
		before := r.Stats().Steps
		_ = m.AdvanceTo(r, r.T+0.01) // an error is a clean refusal too
		// at most 16 sub-steps for each step of the grid (step's retry depth)
		if n, most := r.Stats().Steps-before, 16*int64(math.Ceil(0.01/m.Settings().Step))+16; n > most {
			t.Fatalf("bit %d: the next 10 ms took %d steps, more than %d", bit, n, most)
		}
	}
	t.Logf("%d bits: %d flips refused, %d accepted (values moved within range)", 8*len(blob), refused, accepted)
}
