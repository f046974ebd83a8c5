package solver

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"mbfmu/xml"
)

// chainText is a chain of n bodies (planar on revolute joints, or spatial
// on spherical joints) with the joint to body dup given twice, and the
// links bent at angles that vary along the chain so that no two are
// alike.
func chainText(n int, spatial bool, dup int, shuffle bool) string {
	var b strings.Builder
	var elems []string // the bodies and joints, in the order declared
	if spatial {
		b.WriteString(`<model name="c" dimension="3"><settings end="10 ms" step="1 ms" gravity="0 0 -9.81"/><ground><marker name="O"/></ground>`)
	} else {
		b.WriteString(`<model name="c"><settings end="10 ms" step="1 ms"/><ground><marker name="O"/></ground>`)
	}
	x, y, z := 0.0, 0.0, 0.0
	for i := 0; i < n; i++ {
		th := 0.7 * math.Sin(0.37*float64(i))
		ph := 0.5 * math.Cos(0.23*float64(i))
		dx, dy, dz := math.Cos(th)*math.Cos(ph), math.Sin(th)*math.Cos(ph), math.Sin(ph)
		prev := "ground.O"
		if i > 0 {
			prev = fmt.Sprintf("b%d.b", i-1)
		}
		var e strings.Builder
		if spatial {
			fmt.Fprintf(&e, `<body name="b%d" mass="1" inertia="0.002 0.08 0.08" at="%g %g %g"><marker name="a" at="%g %g %g"/><marker name="b" at="%g %g %g"/></body>`,
				i, x+dx/2, y+dy/2, z+dz/2, -dx/2, -dy/2, -dz/2, dx/2, dy/2, dz/2)
		} else {
			fmt.Fprintf(&e, `<body name="b%d" mass="1" inertia="0.08" at="%g, %g"><marker name="a"/><marker name="b" at="%g, %g"/></body>`,
				i, x, y, dx, dy)
		}
		kind := "revolute"
		if spatial {
			kind = "spherical"
		}
		fmt.Fprintf(&e, `<%s name="j%d" i="%s" j="b%d.a"/>`, kind, i, prev, i)
		if i == dup {
			fmt.Fprintf(&e, `<%s name="again%d" i="%s" j="b%d.a"/>`, kind, i, prev, i)
		}
		elems = append(elems, e.String())
		x, y, z = x+dx, y+dy, z+dz
		if !spatial {
			z = 0
		}
	}
	if shuffle {
		// a fixed permutation: i → 7919 i mod n (n not a multiple of 7919)
		out := make([]string, n)
		for i, e := range elems {
			out[(7919*i)%n] = e
		}
		elems = out
	}
	b.WriteString(strings.Join(elems, ""))
	b.WriteString(`</model>`)
	return b.String()
}

func loadText(t testing.TB, text string) (*Model, *State) {
	t.Helper()
	ms, err := xml.Parse([]byte(text), "chain.xml")
	if err != nil {
		t.Fatal(err)
	}
	return mustCompile(t, ms), nil
}

// The degrees of freedom and the redundant rows come from a factorisation
// in the band of the constraint rows' Gram matrix, whose work space is
// linear in the model's size. Checked against a dense SVD of Φq (the
// rank) on chains small enough for it, and on chains of thousands of
// bodies with a joint given twice: its rows are found redundant and
// removed, and the count of degrees of freedom is that of the chain; also
// with the bodies and joints declared out of order (the rows are then
// taken in the band order, and the band stays narrow).
func TestRankInTheBand(t *testing.T) {
	for _, c := range []struct {
		n       int
		spatial bool
		dup     int
		dof     int
		shuffle bool
	}{
		{60, false, -1, 60, false}, {60, false, 30, 60, false}, {40, true, -1, 120, false}, {40, true, 17, 120, false},
		{3000, false, 1500, 3000, false}, {2000, true, 1234, 6000, false}, {3001, false, 17, 3001, true}, {60, true, 30, 180, true},
	} {
		name := fmt.Sprintf("n=%d spatial=%v dup=%d shuffled=%v", c.n, c.spatial, c.dup, c.shuffle)
		m, _ := loadText(t, chainText(c.n, c.spatial, c.dup, c.shuffle))
		s := mustInit(t, m)
		if d := m.DOF(s); d != c.dof {
			t.Errorf("%s: DOF %d, want %d", name, d, c.dof)
		}
		red := s.Redundant()
		nred := 2
		if c.spatial {
			nred = 3
		}
		switch {
		case c.dup < 0 && red != nil:
			t.Errorf("%s: no joint is redundant, got %v", name, red)
		case c.dup >= 0 && (len(red) != 1 || !strings.Contains(red[0], fmt.Sprintf("again%d (%d)", c.dup, nred))):
			t.Errorf("%s: redundant %v, want again%d (%d)", name, red, c.dup, nred)
		}
		// the work space is sized by the band: a chain's rows meet only
		// their neighbours'
		if m.gband > 8 || len(s.sw.gram) != m.nc*(m.gband+1) {
			t.Errorf("%s: Gram band %d, work %d for %d rows", name, m.gband, len(s.sw.gram), m.nc)
		}
		if m.nv > 1000 {
			continue
		}
		// the rank by a dense SVD of the Jacobian with every row
		s.nred = 0
		clear(s.red)
		J := m.constraintJacobian(s)
		var svd mat.SVD
		if !svd.Factorize(J, mat.SVDNone) {
			t.Fatal("SVD failed")
		}
		sv := svd.Values(nil)
		rank := 0
		for _, v := range sv {
			if v > 1e-9*sv[0] {
				rank++
			}
		}
		if d := m.DOF(s); d != m.nv-rank {
			t.Errorf("%s: DOF %d with every row, dense SVD %d", name, d, m.nv-rank)
		}
	}
}
