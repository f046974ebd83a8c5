package results

import (
	"math"
	"net"
	"testing"
	"time"
)

// packets records each Write as one packet.
type packets [][]byte

func (p *packets) Write(b []byte) (int, error) {
	*p = append(*p, append([]byte(nil), b...))
	return len(b), nil
}

func TestLiveFormat(t *testing.T) {
	var p packets
	w := NewLiveWriter(&p)
	cols := []Column{{Name: "time", Unit: "s"}, {Name: "x", Unit: "m"}}
	if err := w.Header(cols); err != nil {
		t.Fatal(err)
	}
	if err := w.Row([]float64{0.5, -1.25}); err != nil {
		t.Fatal(err)
	}
	if string(p[0]) != "MBFMU-H1\ntime [s],x [m]" {
		t.Fatalf("header packet %q", p[0])
	}
	// 0.5 = 0x3FE0000000000000, -1.25 = 0xBFF4000000000000, little-endian.
	want := []byte{0, 0, 0, 0, 0, 0, 0xE0, 0x3F, 0, 0, 0, 0, 0, 0, 0xF4, 0xBF}
	if string(p[1]) != string(want) {
		t.Fatalf("data packet % x", p[1])
	}
	got, err := ParseLiveHeader(p[0])
	if err != nil || len(got) != 2 || got[1].Name != "x" || got[1].Unit != "m" {
		t.Fatalf("ParseLiveHeader: %+v %v", got, err)
	}
	if IsLiveHeader(p[1]) {
		t.Fatal("data packet taken for a header")
	}
	vals, err := DecodeLiveRows(nil, append(p[1], p[1]...), 2)
	if err != nil || len(vals) != 4 || vals[0] != 0.5 || vals[3] != -1.25 {
		t.Fatalf("DecodeLiveRows: %v %v", vals, err)
	}
	if _, err := DecodeLiveRows(nil, p[1][:12], 2); err == nil {
		t.Fatal("short packet accepted")
	}
	// The header is repeated every LiveHeaderEvery rows.
	for i := 1; i < LiveHeaderEvery; i++ {
		_ = w.Row([]float64{float64(i), 0})
	}
	headers := 0
	for _, q := range p {
		if IsLiveHeader(q) {
			headers++
		}
	}
	if headers != 2 || len(p) != LiveHeaderEvery+2 {
		t.Fatalf("%d headers in %d packets", headers, len(p))
	}
	// Row allocates nothing (measured with a sink that keeps nothing).
	lw := NewLiveWriter(discard{})
	_ = lw.Header(cols)
	row := []float64{1, 2}
	if n := testing.AllocsPerRun(1000, func() { _ = lw.Row(row) }); n != 0 {
		t.Fatalf("live Row allocates %v times", n)
	}
}

type discard struct{}

func (discard) Write(b []byte) (int, error) { return len(b), nil }

func TestLiveUDP(t *testing.T) {
	pc, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Skip("no loopback UDP:", err)
	}
	defer pc.Close()
	conn, err := net.Dial("udp", pc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	w := NewLiveWriter(conn)
	if err := w.Header([]Column{{Name: "time", Unit: "s"}, {Name: "x", Unit: "m"}}); err != nil {
		t.Fatal(err)
	}
	_ = w.Row([]float64{0.1, math.Pi})
	buf := make([]byte, MaxLivePacket)
	_ = pc.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, _, err := pc.ReadFromUDP(buf)
	if err != nil || !IsLiveHeader(buf[:n]) {
		t.Fatalf("first packet: %v %q", err, buf[:n])
	}
	n, _, err = pc.ReadFromUDP(buf)
	if err != nil {
		t.Fatal(err)
	}
	vals, err := DecodeLiveRows(nil, buf[:n], 2)
	if err != nil || vals[1] != math.Pi {
		t.Fatalf("%v %v", vals, err)
	}
	// With nobody listening, Row still succeeds (best effort).
	pc.Close()
	for i := 0; i < 3; i++ {
		if err := w.Row([]float64{0.2, 1}); err != nil {
			t.Fatalf("Row failed without a listener: %v", err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
