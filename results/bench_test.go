package results

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"
)

// peakHeap samples HeapAlloc until stop is closed and returns the maximum.
func peakHeap(stop <-chan struct{}, out *uint64, wg *sync.WaitGroup) {
	defer wg.Done()
	var ms runtime.MemStats
	tk := time.NewTicker(5 * time.Millisecond)
	defer tk.Stop()
	for {
		runtime.ReadMemStats(&ms)
		if ms.HeapAlloc > *out {
			*out = ms.HeapAlloc
		}
		select {
		case <-stop:
			return
		case <-tk.C:
		}
	}
}

func export(b *testing.B, path string, rows, ncol int) {
	x, err := NewXLSXWriter(path)
	if err != nil {
		b.Fatal(err)
	}
	cols := make([]Column, ncol)
	cols[0] = Column{Name: "time", Unit: "s", Group: GroupTime}
	for i := 1; i < ncol; i++ {
		cols[i] = Column{Name: fmt.Sprintf("body%d.x", i), Unit: "m", Group: GroupPosition}
	}
	if err := x.Header(cols); err != nil {
		b.Fatal(err)
	}
	row := make([]float64, ncol)
	for r := 0; r < rows; r++ {
		row[0] = float64(r) * 1e-3
		for c := 1; c < ncol; c++ {
			row[c] = math.Sin(row[0] * float64(c))
		}
		if err := x.Row(row); err != nil {
			b.Fatal(err)
		}
	}
	if err := x.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkXLSXExport1e5x20 streams 100 000 rows × 20 columns into a
// workbook with charts; it reports the peak Go heap and the file size.
func BenchmarkXLSXExport1e5x20(b *testing.B) {
	path := filepath.Join(b.TempDir(), "big.xlsx")
	var peak uint64
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var p uint64
		wg.Add(1)
		go peakHeap(stop, &p, &wg)
		export(b, path, 100000, 20)
		close(stop)
		wg.Wait()
		if p-base.HeapAlloc > peak {
			peak = p - base.HeapAlloc
		}
	}
	st, _ := os.Stat(path)
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
	b.ReportMetric(float64(st.Size())/(1<<20), "file-MB")
}

// BenchmarkCSVToXLSX1e5x20 converts a 100 000 × 20 CSV file.
func BenchmarkCSVToXLSX1e5x20(b *testing.B) {
	dir := b.TempDir()
	csvPath := filepath.Join(dir, "big.csv")
	fh, _ := os.Create(csvPath)
	w := NewCSVWriter(fh)
	cols := make([]Column, 20)
	cols[0] = Column{Name: "time", Unit: "s"}
	for i := 1; i < 20; i++ {
		cols[i] = Column{Name: fmt.Sprintf("body%d.x", i), Unit: "m"}
	}
	_ = w.Header(cols)
	row := make([]float64, 20)
	for r := 0; r < 100000; r++ {
		row[0] = float64(r) * 1e-3
		for c := 1; c < 20; c++ {
			row[c] = math.Sin(row[0] * float64(c))
		}
		_ = w.Row(row)
	}
	_ = w.Close()
	_ = fh.Close()
	b.ResetTimer()
	var peak uint64
	for i := 0; i < b.N; i++ {
		runtime.GC()
		var base runtime.MemStats
		runtime.ReadMemStats(&base)
		stop := make(chan struct{})
		var wg sync.WaitGroup
		var p uint64
		wg.Add(1)
		go peakHeap(stop, &p, &wg)
		if err := CSVToXLSX(csvPath, filepath.Join(dir, "big.xlsx"), RunInfo{}); err != nil {
			b.Fatal(err)
		}
		close(stop)
		wg.Wait()
		if p-base.HeapAlloc > peak {
			peak = p - base.HeapAlloc
		}
	}
	b.ReportMetric(float64(peak)/(1<<20), "peak-heap-MB")
}

// BenchmarkCSVRow measures one 20-column CSV row.
func BenchmarkCSVRow(b *testing.B) {
	w := NewCSVWriter(discard{})
	cols := make([]Column, 20)
	for i := range cols {
		cols[i] = Column{Name: fmt.Sprintf("c%d", i)}
	}
	_ = w.Header(cols)
	row := make([]float64, 20)
	for i := range row {
		row[i] = math.Pi * float64(i)
	}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		row[0] = float64(i)
		_ = w.Row(row)
	}
}
