package study

import (
	"os"
	"path/filepath"
	"testing"
)

// After a write cut short (a full disk, a kill), the store file ends inside
// a line. The next record used to be appended to that partial line and was
// lost with it when the store was read back; now it starts on a line of its
// own, both when the same process goes on and when a new one opens the file.
func TestStoreRecordAfterPartialLine(t *testing.T) {
	dir := t.TempDir()
	s, err := openStore(dir, "local.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.put(&record{ID: "a", Status: "ok"}); err != nil {
		t.Fatal(err)
	}
	s.close()
	// a record cut short by a full disk
	f, err := os.OpenFile(filepath.Join(dir, "local.jsonl"), os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"id":"b","x":["1"],"r":`)
	f.Close()
	// a new process resumes and stores two more runs
	s, err = openStore(dir, "local.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"c", "d"} {
		if err := s.put(&record{ID: id, Status: "ok"}); err != nil {
			t.Fatal(err)
		}
	}
	s.close()
	r, err := openStore(dir, "local.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "c", "d"} {
		if _, ok := r.get(id); !ok {
			t.Errorf("run %s lost when the store was read back", id)
		}
	}
	if _, ok := r.get("b"); ok {
		t.Error("the partial record b was read as a whole one")
	}
}
