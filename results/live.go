package results

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"
)

// Live feed format (UDP datagrams, one packet per Write):
//
//   - Header packet: the 8 bytes LiveHeaderMagic, a '\n', then the CSV
//     header line of the columns ("time [s],arm.x [m],..."; see ReadCSV).
//   - Data packet: k >= 1 rows of n float64 values each (n = number of
//     header columns, time first), IEEE 754 little-endian, 8·n·k bytes,
//     no framing.
//
// A sender repeats the header every LiveHeaderEvery rows so that a viewer
// started late picks the stream up. A receiver drops data packets whose
// length is not a multiple of 8·n.
const (
	// LiveHeaderMagic starts every header packet.
	LiveHeaderMagic = "MBFMU-H1"
	// LiveHeaderEvery is how often (in rows) LiveWriter repeats the header.
	LiveHeaderEvery = 256
	// MaxLivePacket is the largest UDP payload over IPv4.
	MaxLivePacket = 65507
)

// liveWriter sends results as UDP-style packets.
type liveWriter struct {
	w      io.Writer
	hdr    []byte
	buf    []byte
	ncol   int
	rows   int
	closed bool
}

// NewLiveWriter returns a Writer that sends the live feed format to w, one
// Write per packet; w is typically a connected UDP socket
// (net.Dial("udp", "127.0.0.1:PORT")). Delivery is best effort, as UDP is:
// Row ignores transport errors (e.g. no viewer listening) so a simulation
// never stops for its viewer. Row allocates nothing.
func NewLiveWriter(w io.Writer) Writer { return &liveWriter{w: w} }

func (l *liveWriter) Header(cols []Column) error {
	if l.hdr != nil {
		return errors.New("results: live: Header called twice")
	}
	if err := checkColumns(cols); err != nil {
		return err
	}
	b := append([]byte(LiveHeaderMagic), '\n')
	for i, c := range cols {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCSVField(b, HeaderField(c))
	}
	if len(b) > MaxLivePacket || 8*len(cols) > MaxLivePacket {
		return fmt.Errorf("results: live: %d columns do not fit in one UDP packet", len(cols))
	}
	l.hdr, l.ncol = b, len(cols)
	l.buf = make([]byte, 8*len(cols))
	_, _ = l.w.Write(l.hdr)
	return nil
}

func (l *liveWriter) Row(vals []float64) error {
	if l.hdr == nil || l.closed {
		return errors.New("results: live: Row before Header or after Close")
	}
	if len(vals) != l.ncol {
		return fmt.Errorf("results: live: row has %d values, header has %d columns", len(vals), l.ncol)
	}
	l.rows++
	if l.rows%LiveHeaderEvery == 0 {
		_, _ = l.w.Write(l.hdr)
	}
	for i, v := range vals {
		binary.LittleEndian.PutUint64(l.buf[8*i:], math.Float64bits(v))
	}
	_, _ = l.w.Write(l.buf)
	return nil
}

func (l *liveWriter) Close() error {
	l.closed = true
	return nil
}

// IsLiveHeader reports whether packet p is a live-feed header packet.
func IsLiveHeader(p []byte) bool {
	return len(p) > len(LiveHeaderMagic) && string(p[:len(LiveHeaderMagic)]) == LiveHeaderMagic &&
		p[len(LiveHeaderMagic)] == '\n'
}

// ParseLiveHeader returns the columns announced by a header packet.
func ParseLiveHeader(p []byte) ([]Column, error) {
	if !IsLiveHeader(p) {
		return nil, errors.New("results: live: not a header packet")
	}
	line := string(bytes.TrimRight(p[len(LiveHeaderMagic)+1:], "\r\n"))
	rows, err := newCSVRows(strings.NewReader(line + "\n"))
	if err != nil {
		return nil, err
	}
	return rows.cols, nil
}

// DecodeLiveRows appends the rows of data packet p (ncol values each) to
// dst and returns it; it allocates only if dst must grow.
func DecodeLiveRows(dst []float64, p []byte, ncol int) ([]float64, error) {
	if ncol <= 0 || len(p) == 0 || len(p)%(8*ncol) != 0 {
		return dst, fmt.Errorf("results: live: packet of %d bytes is not a whole number of %d-column rows", len(p), ncol)
	}
	for i := 0; i+8 <= len(p); i += 8 {
		dst = append(dst, math.Float64frombits(binary.LittleEndian.Uint64(p[i:])))
	}
	return dst, nil
}
