package study

import (
	"math"
	"sort"
)

// series is one signal of a run sampled at the results rows.
type series struct {
	t, v []float64
}

// window returns the samples of s within [from, until], with the ends
// interpolated when they fall between rows.
func window(t, v []float64, from, until float64) (wt, wv []float64) {
	n := len(t)
	if n == 0 {
		return nil, nil
	}
	from = math.Max(from, t[0])
	until = math.Min(until, t[n-1])
	if until < from {
		return nil, nil
	}
	i0 := sort.SearchFloat64s(t, from) // first t ≥ from
	if i0 < n && t[i0] > from && i0 > 0 {
		wt = append(wt, from)
		wv = append(wv, interp(t, v, i0-1, from))
	}
	for i := i0; i < n && t[i] <= until; i++ {
		wt = append(wt, t[i])
		wv = append(wv, v[i])
	}
	if last := len(wt) - 1; last < 0 || wt[last] < until {
		j := sort.SearchFloat64s(t, until)
		if j > 0 && j < n {
			wt = append(wt, until)
			wv = append(wv, interp(t, v, j-1, until))
		}
	}
	return wt, wv
}

// interp interpolates v linearly at time x between rows i and i+1.
func interp(t, v []float64, i int, x float64) float64 {
	if i+1 >= len(t) || t[i+1] == t[i] {
		return v[i]
	}
	s := (x - t[i]) / (t[i+1] - t[i])
	return v[i] + s*(v[i+1]-v[i])
}

// crossing returns the first instant in [t0, t1] of the window at which w
// reaches 0 from below (the window's start if w ≥ 0 there already), with
// the fraction between the rows; ok is false when there is none.
func crossing(wt, ww []float64) (i int, s float64, ok bool) {
	for k := range ww {
		if !(ww[k] >= 0) {
			continue
		}
		if k == 0 {
			return 0, 0, true
		}
		if !(ww[k-1] < 0) {
			continue
		}
		return k - 1, ww[k-1] / (ww[k-1] - ww[k]), true
	}
	return 0, 0, false
}

// compute returns the value of a signal response of r from the run's
// time t, signal v and when-signal w (nil when not used).
func compute(r *Response, t, v, w []float64) float64 {
	nan := math.NaN()
	if len(t) == 0 {
		return nan
	}
	switch r.Kind {
	case KindAt:
		if !math.IsNaN(r.At) {
			if r.At < t[0]-1e-12 || r.At > t[len(t)-1]+1e-12 {
				return nan
			}
			j := sort.SearchFloat64s(t, r.At)
			switch {
			case j >= len(t):
				return v[len(v)-1]
			case t[j] == r.At || j == 0:
				return v[j]
			}
			return interp(t, v, j-1, r.At)
		}
		wt, ww := window(t, w, r.From, r.Until)
		_, wv := window(t, v, r.From, r.Until)
		i, s, ok := crossing(wt, ww)
		if !ok {
			return nan
		}
		if s == 0 {
			return wv[i]
		}
		return wv[i] + s*(wv[i+1]-wv[i])
	case KindCrossing:
		wt, ww := window(t, w, r.From, r.Until)
		i, s, ok := crossing(wt, ww)
		if !ok {
			return nan
		}
		if s == 0 {
			return wt[i]
		}
		return wt[i] + s*(wt[i+1]-wt[i])
	}
	wt, wv := window(t, v, r.From, r.Until)
	n := len(wt)
	if n == 0 {
		return nan
	}
	switch r.Kind {
	case KindFinal:
		return wv[n-1]
	case KindInitial:
		return wv[0]
	case KindMin, KindTimeOfMin:
		k := 0
		for i := range wv {
			if wv[i] < wv[k] || math.IsNaN(wv[i]) && !math.IsNaN(wv[k]) {
				k = i
			}
		}
		if r.Kind == KindMin {
			return wv[k]
		}
		return wt[k]
	case KindMax, KindTimeOfMax:
		k := 0
		for i := range wv {
			if wv[i] > wv[k] || math.IsNaN(wv[i]) && !math.IsNaN(wv[k]) {
				k = i
			}
		}
		if r.Kind == KindMax {
			return wv[k]
		}
		return wt[k]
	case KindMaxAbs:
		m := 0.0
		for _, x := range wv {
			if math.IsNaN(x) {
				return nan
			}
			m = math.Max(m, math.Abs(x))
		}
		return m
	case KindIntegral:
		return trapz(wt, wv, false)
	case KindMean:
		if n == 1 {
			return wv[0]
		}
		return trapz(wt, wv, false) / (wt[n-1] - wt[0])
	case KindRMS:
		if n == 1 {
			return math.Abs(wv[0])
		}
		return math.Sqrt(trapz(wt, wv, true) / (wt[n-1] - wt[0]))
	case KindSettling:
		target := r.Target
		if math.IsNaN(target) {
			target = wv[n-1]
		}
		band := r.Band
		if r.BandRel {
			band *= math.Abs(target - wv[0])
		}
		out := func(i int) bool { return !(math.Abs(wv[i]-target) <= band) }
		last := -1
		for i := n - 1; i >= 0; i-- {
			if out(i) {
				last = i
				break
			}
		}
		switch {
		case last < 0:
			return 0
		case last == n-1:
			return math.Inf(1)
		}
		// the signal enters the band for good between rows last and last+1
		a, b := math.Abs(wv[last]-target), math.Abs(wv[last+1]-target)
		s := 1.0
		if a > b && !math.IsInf(a, 0) {
			s = (a - band) / (a - b)
		}
		return wt[last] + s*(wt[last+1]-wt[last]) - wt[0]
	case KindOvershoot:
		target := r.Target
		if math.IsNaN(target) {
			target = wv[n-1]
		}
		v0 := wv[0]
		if target == v0 {
			return nan
		}
		var os float64
		if target > v0 {
			peak := math.Inf(-1)
			for _, x := range wv {
				peak = math.Max(peak, x)
			}
			os = (peak - target) / (target - v0)
		} else {
			peak := math.Inf(1)
			for _, x := range wv {
				peak = math.Min(peak, x)
			}
			os = (target - peak) / (v0 - target)
		}
		return 100 * math.Max(0, os)
	}
	return nan
}

// trapz integrates v (or v² when sq) over t by the trapezoidal rule.
func trapz(t, v []float64, sq bool) float64 {
	s := 0.0
	for i := 1; i < len(t); i++ {
		a, b := v[i-1], v[i]
		if sq {
			a, b = a*a, b*b
		}
		s += 0.5 * (a + b) * (t[i] - t[i-1])
	}
	return s
}
