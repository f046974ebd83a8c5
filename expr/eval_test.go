package expr

import (
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
)

const benchSrc = "-k*(x-0.1) - c*v + step(time,0,0,1,5)"

// A program with measures, a table, an n-ary max and a step.
const allocSrc = "-k*(dx(arm.tip)-0.1) - c*vx(arm.tip) + spl(time)*ak'(x) + max(x, y, z) + " +
	"if(time < 1, 0, 50*sin(2*pi*time)) + step5(time, 0, 0, 1, 5) + havsin(y, z, 0, z + 1, 2)"

func TestEvalAllocatesNothing(t *testing.T) {
	env := newEnv()
	p, err := Compile(allocSrc, env)
	if err != nil {
		t.Fatal(err)
	}
	if !p.UsesMeasures() {
		t.Fatal("program should use measures")
	}
	d := p.Deriv(sTime)
	vars, meas := stdVars(), newMeas()
	var sink float64
	allocs := testing.AllocsPerRun(1000, func() {
		vars[sTime] += 1e-3
		sink += p.Eval(vars, meas) + d.Eval(vars, meas)
	})
	if allocs != 0 {
		t.Errorf("Eval allocates %v times per run", allocs)
	}
	if math.IsNaN(sink) {
		t.Error("NaN")
	}
}

// TestConcurrentEval evaluates one Program from many goroutines, each with
// its own variables and measurer, and checks each result against the closed
// form. Run with -race.
func TestConcurrentEval(t *testing.T) {
	env := newEnv()
	p, err := Compile("-k*(dx(arm.tip)-0.1) - c*v + step(time, 0, 0, 1, 5) + tbl(x)", env)
	if err != nil {
		t.Fatal(err)
	}
	want := func(vars []float64, dx float64) float64 {
		tm := vars[sTime]
		st := 5.0
		if tm < 1 {
			st = 5 * tm * tm * (3 - 2*tm)
		}
		x := vars[sX] // tbl is the tent 0 -> 10 -> 0 on [0, 2]; x in [0, 1] here
		return -vars[sK]*(dx-0.1) - vars[sC]*vars[sV] + st + 10*x
	}
	const workers, iters = 8, 2000
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vars := stdVars()
			meas := &measVals{v: []float64{0, 0, 0}}
			for i := range iters {
				vars[sTime] = float64(i%1500) / 1000
				vars[sK] = float64(w + 1)
				vars[sX] = float64(i%97) / 97
				meas.v[0] = float64(w) * 0.01
				got, exp := p.Eval(vars, meas), want(vars, meas.v[0])
				if math.Abs(got-exp) > 1e-12*(1+math.Abs(exp)) {
					errs <- errors.New("concurrent evaluation gave a wrong value")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func BenchmarkEval(b *testing.B) {
	p, err := Compile(benchSrc, newEnv())
	if err != nil {
		b.Fatal(err)
	}
	vars := stdVars()
	var sink float64
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		vars[sTime] = float64(i&1023) * (1.0 / 1024)
		sink += p.Eval(vars, nil)
	}
	if math.IsNaN(sink) {
		b.Fatal("NaN")
	}
}

func BenchmarkEvalMeasuresTable(b *testing.B) {
	p, err := Compile(allocSrc, newEnv())
	if err != nil {
		b.Fatal(err)
	}
	vars, meas := stdVars(), newMeas()
	var sink float64
	for i := 0; b.Loop(); i++ {
		vars[sTime] = float64(i&1023) * (1.0 / 1024)
		sink += p.Eval(vars, meas)
	}
	if math.IsNaN(sink) {
		b.Fatal("NaN")
	}
}

func BenchmarkCompile(b *testing.B) {
	env := newEnv()
	for b.Loop() {
		if _, err := Compile(benchSrc, env); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzCompile checks that no input makes Compile, Eval, String or Deriv
// panic, that errors carry a column inside the source, and that printed
// programs re-parse.
func FuzzCompile(f *testing.F) {
	for _, s := range derivExprs {
		f.Add(s)
	}
	for _, s := range []string{"", "(", ")", "1 +", "sin(", "a.b.", "1e", "step(", "max(1,", "tbl'''(x)", "x'", "--x", "!!x", "2^^3", "pi(1)"} {
		f.Add(s)
	}
	env := newEnv()
	vars, meas := stdVars(), newMeas()
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Compile(src, env)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("%q: error %T", src, err)
			}
			if e.Col < 1 || e.Col > len(src)+1 {
				t.Fatalf("%q: column %d outside the source", src, e.Col)
			}
			return
		}
		p.Eval(vars, meas)
		q, err := Compile(p.String(), env)
		if err != nil && strings.Contains(err.Error(), "nested too deeply") {
			return // printing may add a level or two of parentheses
		}
		if err != nil {
			t.Fatalf("%q printed as %q which does not compile: %v", src, p.String(), err)
		}
		if q.String() != p.String() {
			t.Fatalf("%q printed as %q, then as %q", src, p.String(), q.String())
		}
		d := p.Deriv(sX)
		d.Eval(vars, meas)
		if _, err := Compile(d.String(), env); err != nil {
			t.Fatalf("derivative of %q printed as %q which does not compile: %v", src, d.String(), err)
		}
	})
}
