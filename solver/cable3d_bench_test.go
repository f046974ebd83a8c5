package solver

import (
	"testing"

	"mbfmu/xml"
)

// BenchmarkANCFCable3D is the speed case: examples/ancf-pendulum-3d
// (160 spatial ANCF cable elements, 1.1 s at h = 1 ms, generalized-α).
func BenchmarkANCFCable3D(b *testing.B) {
	ms, err := xml.LoadFile("../examples/ancf-pendulum-3d/model.xml")
	if err != nil {
		b.Fatal(err)
	}
	benchWholeRun(b, mustCompile(b, ms), 1.1)
}
