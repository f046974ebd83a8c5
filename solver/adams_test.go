package solver_test

// Issue 11: the joint unit tests of Project Chrono (src/tests/unit_tests/joints),
// whose reference results were computed with MSC ADAMS, as independent
// references for the spatial joints. Eighteen single-pendulum cases
// (testdata/adams/*.xml, transcribed from the ADAMS .adm files) are simulated
// for 5 s and compared, quantity by quantity, with
//
//   - the ADAMS results where they are transcribed (testdata/adams/adams/*.csv,
//     from Chrono's data/testing/joints), and
//   - a dense independent reference for every case and quantity
//     (testdata/adams/ref/*.csv, computed by scripts/adamsref, which shares no
//     code with the engine and agrees with ADAMS to ADAMS's own accuracy),
//
// with Chrono's criterion: for each column separately, the RMS over the rows
// of (engine − reference) must not exceed Chrono's absolute tolerance for that
// quantity and case. Chrono's energy and constraint checks (RMS of E − E₀ and
// of the constraint violation) are applied too. See testdata/adams/README.md.

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"mbfmu/solver"
	"mbfmu/xml"
)

// adamsQty are the compared quantities, in Chrono's order, with the engine
// channels that give them (the reaction channels are corrected to the ground
// joint point below).
var adamsQty = []struct {
	name string
	cols []string
}{
	{"Pos", []string{"pendulum.x", "pendulum.y", "pendulum.z"}},
	{"Vel", []string{"pendulum.vx", "pendulum.vy", "pendulum.vz"}},
	{"Acc", []string{"pendulum.ax", "pendulum.ay", "pendulum.az"}},
	{"Quat", []string{"pendulum.qw", "pendulum.qx", "pendulum.qy", "pendulum.qz"}},
	{"Avel", []string{"pendulum.wx", "pendulum.wy", "pendulum.wz"}},
	{"Aacc", []string{"pendulum.alphax", "pendulum.alphay", "pendulum.alphaz"}},
	{"Rforce", []string{"joint.fx", "joint.fy", "joint.fz"}},
	{"Rtorque", []string{"joint.tx", "joint.ty", "joint.tz"}},
}

// adamsCase is one Chrono joint test: its tolerances (Chrono's, from
// utest_JOINT_<kind>.cpp: Pos, Vel, Acc, Quat, Avel, Aacc, Rforce, Rtorque,
// then energy and constraints) and the ground joint point (the .adm's
// marker 0102), about which ADAMS reports the reaction torque.
type adamsCase struct {
	name string
	tol  [10]float64
	p    [3]float64
}

var adamsCases = []adamsCase{
	{"Revolute_Case01", [10]float64{1e-3, 1e-4, 2e-2, 1e-3, 1e-2, 1e-2, 2e-2, 1e-2, 1e-2, 1e-5}, [3]float64{0, 0, 0}},
	{"Revolute_Case02", [10]float64{1e-3, 1e-4, 1e-2, 1e-3, 1e-5, 1e-2, 1e-2, 1e-2, 1e-2, 1e-5}, [3]float64{1, 2, 3}},
	{"Spherical_Case01", [10]float64{2e-3, 1e-3, 2e-2, 1e-3, 2e-2, 2e-2, 2e-2, 1e-6, 1e-2, 1e-5}, [3]float64{0, 0, 0}},
	{"Spherical_Case02", [10]float64{2e-3, 1e-3, 2e-2, 1e-3, 2e-2, 2e-2, 2e-2, 1e-6, 1e-2, 1e-5}, [3]float64{1, 2, 3}},
	{"Universal_Case01", [10]float64{2e-3, 2e-3, 2e-2, 1e-3, 2e-2, 2e-2, 2e-2, 1e-6, 1e-2, 1e-5}, [3]float64{0, 0, 0}},
	{"Universal_Case02", [10]float64{2e-3, 2e-3, 2e-2, 1e-3, 2e-2, 2e-2, 2e-2, 1e-6, 1e-2, 1e-5}, [3]float64{0, 0, 0}},
	// commented out in Chrono; the tolerances of the commented lines
	{"Universal_Case03", [10]float64{2e-3, 2e-3, 2e-2, 1e-3, 2e-2, 2e-2, 2e-2, 5e-4, 1e-2, 1e-5}, [3]float64{0, 0, 0}},
	{"Prismatic_Case01", [10]float64{1e-2, 1e-4, 2e-2, 1e-3, 2e-2, 2e-2, 1e-6, 1e-6, 1e-1, 1e-5}, [3]float64{0, 0, 0}},
	{"Prismatic_Case02", [10]float64{1e-2, 1e-4, 2e-2, 1e-3, 2e-2, 2e-2, 2e-2, 1e-1, 1e-1, 1e-5}, [3]float64{1, 2, 3}},
	{"Prismatic_Case03", [10]float64{1e-5, 1e-4, 2e-2, 1e-3, 2e-2, 2e-2, 2e-2, 1e-3, 1e-2, 1e-5}, [3]float64{1, 2, 3}},
	{"Cylindrical_Case01", [10]float64{1e-2, 1e-4, 2e-2, 1e-3, 2e-2, 2e-2, 2e-2, 1e-6, 1e-1, 1e-5}, [3]float64{0, 0, 0}},
	{"Cylindrical_Case02", [10]float64{1e-2, 1e-4, 2e-2, 1e-3, 2e-2, 2e-2, 2e-2, 1e-6, 1e-2, 1e-5}, [3]float64{0, 0, 0}},
	{"Cylindrical_Case03", [10]float64{1e-2, 1e-4, 2e-2, 1e-3, 2e-2, 2e-2, 2e-2, 5e-1, 1e-1, 1e-5}, [3]float64{1, 2, 3}},
	{"Distance_Case01", [10]float64{1e-3, 1e-4, 2e-2, 1e-3, 1e-2, 1e-1, 2e-2, 1e-10, 1e-2, 1e-5}, [3]float64{0, 0, 0}},
	{"Distance_Case02", [10]float64{1e-3, 2e-3, 2e0, 4e-3, 2e-2, 2e1, 1e-1, 1e-10, 1e-2, 1e-5}, [3]float64{1, 2, 3}},
	{"Distance_Case03", [10]float64{1e-3, 1e-4, 2e-2, 1e-3, 1e-2, 1e-1, 2e-2, 1e-10, 1e-2, 1e-5}, [3]float64{0, 0, 0}},
	// Rforce/Rtorque: Chrono's Rforce_Body1, Rtorque_Body1 (the wrench on the ground)
	{"RevSpherical_Case01", [10]float64{1e-4, 1e-4, 1e-1, 1e-5, 1e-4, 5e-1, 5e-1, 5e-1, 1e-2, 1e-5}, [3]float64{0, 0, 0}},
	{"RevSpherical_Case02", [10]float64{1e-4, 1e-4, 1e-1, 1e-5, 1e-3, 5e-1, 5e-1, 5e-1, 1e-2, 1e-5}, [3]float64{1, 2, 3}},
}

// adamsRun is a simulation sampled at the output step: time and, per
// quantity, the rows of its columns.
type adamsRun struct {
	t      []float64
	q      map[string][][]float64
	energy []float64 // E − E₀
	cviol  []float64 // largest position constraint violation
	steps  int64
	wall   time.Duration
}

// adamsOpts override a case's settings (zero values: the model file's).
type adamsOpts struct {
	h, newtonTol float64
	integrator   string
	params       map[string]float64
}

// runAdamsCase simulates testdata/adams/<case>.xml (with the overrides o)
// and returns every quantity at every output step, in the references'
// conventions: reactions on the ground about the ground joint point (the
// engine reports a ground-side joint's reaction as minus the reaction on
// the body of marker j, moved to marker i's origin).
func runAdamsCase(t testing.TB, c adamsCase, o adamsOpts) *adamsRun {
	t.Helper()
	name := c.name
	ms, err := xml.LoadFile(filepath.Join("testdata", "adams", name+".xml"))
	if err != nil {
		t.Fatal(err)
	}
	if o.h > 0 {
		ms.Settings.Step = o.h
	}
	if o.newtonTol > 0 {
		ms.Settings.NewtonTol = o.newtonTol
	}
	if o.integrator != "" {
		ms.Settings.Integrator = o.integrator
	}
	m, err := solver.Compile(ms, solver.CompileOptions{Params: o.params})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s := m.NewState()
	start := time.Now()
	if err := m.Init(s); err != nil {
		t.Fatalf("%s: init: %v", name, err)
	}
	chans := []string{"energy.total", "constraint.position"}
	for _, q := range adamsQty {
		chans = append(chans, q.cols...)
	}
	idx := map[string]int{}
	for _, ch := range chans {
		k, ok := m.ChannelIndex(ch)
		if !ok {
			t.Fatalf("%s: no channel %s", name, ch)
		}
		idx[ch] = k
	}
	row := make([]float64, len(m.Channels()))
	r := &adamsRun{q: map[string][][]float64{}}
	st := m.Settings()
	n := int(math.Round((st.End - st.Start) / st.OutputStep))
	var e0 float64
	for k := 0; k <= n; k++ {
		if k > 0 {
			if err := m.AdvanceTo(s, st.Start+float64(k)*st.OutputStep); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		m.EvalChannels(s, row)
		get := func(c string) float64 { return row[idx[c]] }
		if k == 0 {
			e0 = get("energy.total")
		}
		r.t = append(r.t, s.T)
		r.energy = append(r.energy, get("energy.total")-e0)
		r.cviol = append(r.cviol, get("constraint.position"))
		for _, q := range adamsQty {
			v := make([]float64, len(q.cols))
			for i, c := range q.cols {
				v[i] = get(c)
			}
			r.q[q.name] = append(r.q[q.name], v)
		}
	}
	r.wall = time.Since(start)
	r.steps = s.Stats().Steps
	return r
}

// refTable is a reference file: times and rows of values.
type refTable struct {
	t    []float64
	rows [][]float64
}

// loadRefCSV reads a CSV with '#' comment lines and one header line.
func loadRefCSV(t testing.TB, path string) refTable {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var tb refTable
	sc := bufio.NewScanner(f)
	header := false
	line := 0
	for sc.Scan() {
		line++
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if !header {
			header = true
			continue
		}
		fs := strings.Split(l, ",")
		v := make([]float64, len(fs))
		for i, s := range fs {
			if v[i], err = strconv.ParseFloat(s, 64); err != nil {
				t.Fatalf("%s:%d: %v", path, line, err)
			}
		}
		tb.t = append(tb.t, v[0])
		tb.rows = append(tb.rows, v[1:])
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return tb
}

// rmsCols returns, per column, the RMS over the reference rows of
// (engine − reference); the engine's rows are picked at the reference
// times (which must be output times). For Euler parameters q and −q are the
// same orientation: each engine row takes the sign nearest the reference.
func rmsCols(t testing.TB, r *adamsRun, qty string, ref refTable, col0 int) []float64 {
	t.Helper()
	dt := r.t[1] - r.t[0]
	var sum []float64
	for i, tt := range ref.t {
		k := int(math.Round(tt / dt))
		if k >= len(r.t) || math.Abs(r.t[k]-tt) > 1e-9 {
			t.Fatalf("reference time %g is not an output time", tt)
		}
		e := r.q[qty][k]
		want := ref.rows[i][col0 : col0+len(e)]
		sign := 1.0
		if qty == "Quat" {
			dot := 0.0
			for j := range e {
				dot += e[j] * want[j]
			}
			if dot < 0 {
				sign = -1
			}
		}
		if sum == nil {
			sum = make([]float64, len(e))
		}
		for j := range e {
			d := sign*e[j] - want[j]
			sum[j] += d * d
		}
	}
	for j := range sum {
		sum[j] = math.Sqrt(sum[j] / float64(len(ref.t)))
	}
	return sum
}

func rms(x []float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return math.Sqrt(s / float64(len(x)))
}

func maxOf(x []float64) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	return m
}

// adamsErrors are a run's worst column RMS errors per quantity (Chrono's
// order), then the RMS of E − E₀ and of the constraint violation.
type adamsErrors [10]float64

// compareAdamsCase runs case c and returns its errors against the dense
// reference, with a printable summary.
func compareAdamsCase(t testing.TB, c adamsCase, o adamsOpts) (adamsErrors, *adamsRun, string) {
	t.Helper()
	r := runAdamsCase(t, c, o)
	ref := loadRefCSV(t, filepath.Join("testdata", "adams", "ref", c.name+".csv"))
	var e adamsErrors
	var line strings.Builder
	col := 0
	for qi, q := range adamsQty {
		e[qi] = maxOf(rmsCols(t, r, q.name, ref, col))
		col += len(q.cols)
		fmt.Fprintf(&line, " %s %.2g/%.0e", q.name, e[qi], c.tol[qi])
	}
	e[8], e[9] = rms(r.energy), rms(r.cviol)
	fmt.Fprintf(&line, " energy %.2g/%.0e constraint %.2g/%.0e", e[8], c.tol[8], e[9], c.tol[9])
	return e, r, line.String()
}

var adamsWhat = [10]string{"Pos", "Vel", "Acc", "Quat", "Avel", "Aacc", "Rforce", "Rtorque", "energy (RMS of E − E₀)", "constraints (RMS violation)"}

// adamsFiles lists the ADAMS files of a case (testdata/adams/adams/<case>_<Q>[_spot].csv).
func adamsFiles(t testing.TB, name string) []string {
	t.Helper()
	fs, err := filepath.Glob(filepath.Join("testdata", "adams", "adams", name+"_*.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return fs
}

// TestAdamsJoints runs the eighteen cases and compares every quantity with
// the dense independent reference and, where transcribed, with ADAMS, with
// Chrono's tolerances.
func TestAdamsJoints(t *testing.T) {
	for _, c := range adamsCases {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && strings.HasPrefix(c.name, "RevSpherical") {
				t.Skip("short: the revolute-spherical cases take 25 µs steps")
			}
			e, r, line := compareAdamsCase(t, c, adamsOpts{})
			for k := range e {
				if e[k] > c.tol[k] {
					t.Errorf("%s: worst RMS error %.3g against the reference, over Chrono's tolerance %g", adamsWhat[k], e[k], c.tol[k])
				}
			}
			t.Logf("against the reference, worst RMS/tolerance:%s; %d steps, %.2f s", line, r.steps, r.wall.Seconds())
			// ADAMS itself, where transcribed; the RMS of ADAMS against the
			// reference is its own error (print resolution, integration
			// noise of the reactions, energy loss in Universal_Case03).
			ref := loadRefCSV(t, filepath.Join("testdata", "adams", "ref", c.name+".csv"))
			for _, f := range adamsFiles(t, c.name) {
				base := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), c.name+"_"), ".csv")
				qty := strings.TrimSuffix(base, "_spot")
				qi, col := -1, 0
				for k, q := range adamsQty {
					if q.name == qty {
						qi = k
						break
					}
					col += len(q.cols)
				}
				if qi < 0 {
					t.Fatalf("%s: unknown quantity %q", f, qty)
				}
				ad := loadRefCSV(t, f)
				eng := maxOf(rmsCols(t, r, qty, ad, 0))
				// the same rows of the reference, as a run, against ADAMS
				own := 0.0
				for j := range adamsQty[qi].cols {
					s := 0.0
					for i, tt := range ad.t {
						k := int(math.Round(tt / (ref.t[1] - ref.t[0])))
						d := ref.rows[k][col+j] - ad.rows[i][j]
						s += d * d
					}
					own = math.Max(own, math.Sqrt(s/float64(len(ad.t))))
				}
				t.Logf("against ADAMS %s (%d rows, %.2f–%.2f s): worst RMS %.2g (tolerance %.0e); the reference against ADAMS: %.2g",
					base, len(ad.t), ad.t[0], ad.t[len(ad.t)-1], eng, c.tol[qi], own)
				if eng > c.tol[qi] {
					t.Errorf("%s: worst RMS error %.3g against ADAMS, over Chrono's tolerance %g", base, eng, c.tol[qi])
				}
			}
		})
	}
}

// BenchmarkAdamsJoints times each case (model compiled, 5 s simulated at
// the model file's step, every quantity sampled every 10 ms).
func BenchmarkAdamsJoints(b *testing.B) {
	for _, c := range adamsCases {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				runAdamsCase(b, c, adamsOpts{})
			}
		})
	}
}

// TestAdamsJointsIntegrators runs one case of each joint kind (the most
// three-dimensional one) with the other integrators, at the model files'
// steps, against the same tolerances.
func TestAdamsJointsIntegrators(t *testing.T) {
	if testing.Short() {
		t.Skip("short")
	}
	pick := map[string]bool{"Revolute_Case02": true, "Spherical_Case02": true, "Universal_Case03": true,
		"Prismatic_Case02": true, "Cylindrical_Case03": true, "Distance_Case02": true}
	for _, integ := range []string{"hht", "newmark", "rk4"} {
		for _, c := range adamsCases {
			if !pick[c.name] {
				continue
			}
			t.Run(integ+"/"+c.name, func(t *testing.T) {
				e, r, line := compareAdamsCase(t, c, adamsOpts{integrator: integ})
				for k := range e {
					if e[k] > c.tol[k] {
						t.Errorf("%s: worst RMS error %.3g against the reference, over Chrono's tolerance %g", adamsWhat[k], e[k], c.tol[k])
					}
				}
				t.Logf("worst RMS/tolerance:%s; %.2f s", line, r.wall.Seconds())
			})
		}
	}
}
