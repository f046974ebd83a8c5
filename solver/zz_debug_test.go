package solver

import (
	"fmt"
	"testing"

	"mbfmu/xml"
)

func TestZZDebug(t *testing.T) {
	ms, err := xml.LoadFile("/tmp/nf/c/sprbig.xml")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Compile(ms, CompileOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := m.NewState()
	if err := m.Init(s); err != nil {
		t.Fatal(err)
	}
	err = m.AdvanceTo(s, 0.01)
	fmt.Println(err)
	n := s.lin.N()
	a := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a[i*n+j] = s.lin.At(i, j)
		}
		fmt.Println(a[i*n : i*n+n])
	}
	eq := append([]float64(nil), a...)
	equilibrate(eq, n)
	for i := 0; i < n; i++ {
		fmt.Println(eq[i*n : i*n+n])
	}
	fmt.Println(pivotFail(append([]float64(nil), a...), n))
	fmt.Println(pivotFail(eq, n))
}
