package fmu

import (
	"encoding/binary"
	"hash/crc32"
	"strings"
	"testing"
)

// A serialised FMU state carries a format version, the FMU's GUID and a
// CRC-32C: every single-bit flip of a real state (the feed model after ten
// steps) is refused by fmi2DeSerializeFMUstate with fmi2Error, and the
// instance goes on unharmed. A state whose checksum is recomputed after a
// change (a crafted or foreign one) is still range-checked: a
// communication step count that does not give back the state's time (a
// flipped count once made the next 1 ms step take 10 s) is refused.
func TestSerializedStateBitFlips(t *testing.T) {
	in, l := instantiateText(t, feedModel)
	startInstance(t, in)
	for k := 0; k < 10; k++ {
		if st := in.DoStep(float64(k)*0.01, 0.01, true); st != OK {
			t.Fatal(st)
		}
	}
	snap, st := in.GetFMUState(nil)
	if st != OK {
		t.Fatal(st)
	}
	blob, st := in.SerializeFMUState(snap)
	if st != OK {
		t.Fatal(st)
	}
	blob = append([]byte(nil), blob...)
	for bit := 0; bit < 8*len(blob); bit++ {
		b := append([]byte(nil), blob...)
		b[bit/8] ^= 1 << (bit % 8)
		if _, st := in.DeserializeFMUState(b); st != Error {
			t.Fatalf("bit %d flipped: fmi2DeSerializeFMUstate returned %s, want fmi2Error", bit, st)
		}
	}
	t.Logf("%d bits: every flip refused", 8*len(blob))
	if !l.has("checksum") {
		t.Error("no log line names the checksum")
	}
	// the intact state still restores and steps
	s2, st := in.DeserializeFMUState(blob)
	if st != OK {
		t.Fatal(st)
	}
	if st := in.SetFMUState(s2); st != OK {
		t.Fatal(st)
	}
	if st := in.DoStep(0.1, 0.01, true); st != OK {
		t.Fatalf("step after restoring: %s", st)
	}
	// a valid checksum over a damaged clock count: refused by the ranges
	off := strings.Index(string(blob), in.desc.GUID) + len(in.desc.GUID) + 4 + 7*8 // phase, flags, status, 0; seven float64
	b := append([]byte(nil), blob...)
	binary.LittleEndian.PutUint64(b[off:], binary.LittleEndian.Uint64(b[off:])+1<<40)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], crc32.MakeTable(crc32.Castagnoli)))
	if _, st := in.DeserializeFMUState(b); st != Error || !l.has("communication clock") {
		t.Errorf("a state with a damaged step count and a valid checksum: %s, want fmi2Error naming the communication clock", st)
	}
}
