package flex

import (
	"math"
	"testing"
)

// TestSlopeLength: the Newton weight of a slope coordinate is the largest
// displacement a unit slope change causes inside an element, the maximum
// over ξ of the Hermite function l(ξ − 2ξ² + ξ³), found here by sampling.
func TestSlopeLength(t *testing.T) {
	const l = 0.37
	peak := 0.0
	for k := 0; k <= 100000; k++ {
		xi := float64(k) / 100000
		peak = math.Max(peak, l*(xi-2*xi*xi+xi*xi*xi))
	}
	if got := slopeLength(l); math.Abs(got-peak) > 1e-9*l {
		t.Errorf("slopeLength(%g) = %g, the shape function's maximum is %g", l, got, peak)
	}
}
