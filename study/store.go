package study

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// The store keeps the outcome of every finished run, so that a study run
// again (after a kill, with more runs, through Slurm) skips the runs
// already done. It is a folder of JSON-lines files: each process appends
// to its own file (local.jsonl for local runs, task-JOB-TASK.jsonl for a
// Slurm array task), one line per run, written with a single write call as
// soon as the run ends. A line cut short by a kill is ignored when read.

// record is one line of the store.
type record struct {
	ID     string   `json:"id"`
	X      []string `json:"x"`
	R      []string `json:"r"`
	Status string   `json:"status"`
	Reason string   `json:"reason,omitempty"`
	Wall   float64  `json:"wall"`
	Sim    float64  `json:"sim"`
}

func fstr(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func fparse(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

func strs(v []float64) []string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fstr(x)
	}
	return s
}

func floats(s []string) []float64 {
	v := make([]float64, len(s))
	for i, x := range s {
		v[i] = fparse(x)
	}
	return v
}

// store is an open store folder.
type store struct {
	dir  string
	name string // file this process appends to

	mu   sync.Mutex
	f    *os.File
	recs map[string]*record
	cut  bool // the file ends inside a line: start the next record on a new one
}

// openStore reads every record in dir (creating it), to append to
// dir/name.
func openStore(dir, name string) (*store, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	s := &store{dir: dir, name: name, recs: map[string]*record{}}
	if err := s.reload(); err != nil {
		return nil, err
	}
	return s, nil
}

// reload reads the records of every file in the folder; a later record of
// a run replaces an earlier one only when the earlier one failed.
func (s *store) reload() error {
	files, err := filepath.Glob(filepath.Join(s.dir, "*.jsonl"))
	if err != nil {
		return err
	}
	sort.Strings(files)
	for _, fn := range files {
		data, err := os.ReadFile(fn)
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 64<<10), 64<<20)
		for sc.Scan() {
			line := sc.Bytes()
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			r := &record{}
			if err := json.Unmarshal(line, r); err != nil || r.ID == "" {
				continue // a line cut short by a kill
			}
			if old, ok := s.recs[r.ID]; ok && old.Status == "ok" {
				continue
			}
			s.recs[r.ID] = r
		}
	}
	return nil
}

// get returns the record of a run.
func (s *store) get(id string) (*record, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	r, ok := s.recs[id]
	return r, ok
}

// count returns the number of records.
func (s *store) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.recs)
}

// put appends a record to this process's file.
func (s *store) put(r *record) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		path := filepath.Join(s.dir, s.name)
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
		if err != nil {
			return fmt.Errorf("store: %w", err)
		}
		s.f = f
		// a file left ending inside a line (a kill, a full disk) gets its
		// record boundary back before the next record
		if fi, err := f.Stat(); err == nil && fi.Size() > 0 {
			last := make([]byte, 1)
			if _, err := f.ReadAt(last, fi.Size()-1); err != nil || last[0] != '\n' {
				s.cut = true
			}
		}
	}
	if s.cut {
		// a newline first, so that this record does not continue the line
		// a failed write cut short (it would be lost with it)
		line = append([]byte{'\n'}, line...)
	}
	if _, err := s.f.Write(line); err != nil {
		s.cut = true
		return fmt.Errorf("store: %w", err)
	}
	s.cut = false
	s.recs[r.ID] = r
	return nil
}

// close closes the file.
func (s *store) close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f = nil
	return err
}

// resultsPath is where --keep-results puts the results of run id.
func (s *store) resultsPath(id string) string {
	return filepath.Join(s.dir, "results", id+".csv")
}

// safeName keeps letters, digits, '-' and '_' of s.
func safeName(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			return r
		}
		return '_'
	}, s)
}
