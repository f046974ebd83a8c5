package main

import (
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"mbfmu/results"
)

// liveFeed receives the live feed (see results.NewLiveWriter for the packet
// format) on a UDP socket in its own goroutine and hands rows to the
// drawing loop through take.
type liveFeed struct {
	conn *net.UDPConn
	done chan struct{}

	mu      sync.Mutex
	cols    []results.Column // latest header
	gen     int              // incremented when the header changes
	pending []float64        // rows received since the last take, row-major
	dropped int              // packets that did not match the header
	err     error
}

// parseLiveAddr accepts "udp:HOST:PORT".
func parseLiveAddr(s string) (*net.UDPAddr, error) {
	rest, ok := strings.CutPrefix(s, "udp:")
	if !ok {
		return nil, fmt.Errorf("live address %q: want udp:HOST:PORT", s)
	}
	a, err := net.ResolveUDPAddr("udp", rest)
	if err != nil {
		return nil, fmt.Errorf("live address %q: %w", s, err)
	}
	return a, nil
}

// startLive listens on addr ("udp:HOST:PORT"). cols, if not nil, are the
// columns to expect until a header packet arrives.
func startLive(addr string, cols []results.Column) (*liveFeed, error) {
	a, err := parseLiveAddr(addr)
	if err != nil {
		return nil, err
	}
	conn, err := net.ListenUDP("udp", a)
	if err != nil {
		return nil, fmt.Errorf("live: %w", err)
	}
	_ = conn.SetReadBuffer(4 << 20)
	f := &liveFeed{conn: conn, done: make(chan struct{}), cols: cols}
	go f.receive()
	return f, nil
}

// addr returns the local address the feed listens on.
func (f *liveFeed) addr() string { return f.conn.LocalAddr().String() }

func (f *liveFeed) receive() {
	defer close(f.done)
	buf := make([]byte, results.MaxLivePacket+1)
	for {
		n, _, err := f.conn.ReadFromUDP(buf)
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				f.mu.Lock()
				f.err = err
				f.mu.Unlock()
			}
			return
		}
		f.handle(buf[:n])
	}
}

// handle processes one packet.
func (f *liveFeed) handle(p []byte) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if results.IsLiveHeader(p) {
		cols, err := results.ParseLiveHeader(p)
		if err != nil {
			f.dropped++
			return
		}
		if !sameCols(cols, f.cols) {
			f.cols, f.pending = cols, f.pending[:0]
			f.gen++
		}
		return
	}
	if len(f.cols) == 0 {
		f.dropped++
		return
	}
	var err error
	if f.pending, err = results.DecodeLiveRows(f.pending, p, len(f.cols)); err != nil {
		f.dropped++
	}
}

func sameCols(a, b []results.Column) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Unit != b[i].Unit {
			return false
		}
	}
	return true
}

// take returns the current header, its generation and the rows received
// since the last call (row-major; the slice is handed over to the caller).
func (f *liveFeed) take() (cols []results.Column, gen int, rows []float64, dropped int, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rows, f.pending = f.pending, nil
	return f.cols, f.gen, rows, f.dropped, f.err
}

// close stops the receiver and waits for it.
func (f *liveFeed) close() {
	_ = f.conn.Close()
	select {
	case <-f.done:
	case <-time.After(2 * time.Second):
	}
}
