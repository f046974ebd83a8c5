package cosim

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"net"
	"os"
	"syscall"
	"time"

	mxml "mbfmu/xml"
)

// The UDP bridge exchanges a plant's signals with an external rig once per
// macro step, in lock step: at each communication point the master sends
// one packet with the bridge's inputs (typically the plant outputs) and
// waits for the rig's answer carrying the bridge's outputs (typically the
// plant inputs), which are then held over the macro step.
//
// Packet layout (little endian), for both directions:
//
//	offset  size  field
//	0       4     magic "MBFU"
//	4       1     version, 1
//	5       1     kind: 1 master → rig, 2 rig → master
//	6       2     n, number of values (uint16)
//	8       8     sequence number (uint64): 0 for the exchange at the start
//	              time, +1 per macro step; the rig answers with the number
//	              of the packet it answers
//	16      8     simulation time t of the exchange (float64, s)
//	24      8·n   the values (float64, SI units), in the order of the
//	              bridge's inputs (kind 1) or outputs (kind 2)
//
// An answer with a wrong size, magic, version, kind or value count, or a
// sequence number other than the awaited one, is ignored (counted as bad,
// or late when it answers an earlier exchange) and the master keeps
// waiting until the timeout. When no valid answer arrives in time the
// on-timeout policy applies: hold (keep the last received values; the
// output-start values before the first answer), zero (all outputs 0) or
// fail (stop the run with an error).

// Packet kinds of the UDP bridge.
const (
	// PacketToRig is a packet from the master to the rig.
	PacketToRig = 1
	// PacketFromRig is a packet from the rig to the master.
	PacketFromRig = 2
	// PacketHeaderSize is the size of the packet header in bytes.
	PacketHeaderSize = 24
	packetVersion    = 1
)

var errPacket = errors.New("cosim: malformed packet")

// AppendPacket appends a bridge packet of the given kind, sequence number,
// time and values to dst and returns the extended slice. It allocates only
// if dst lacks capacity.
func AppendPacket(dst []byte, kind byte, seq uint64, t float64, vals []float64) []byte {
	dst = append(dst, 'M', 'B', 'F', 'U', packetVersion, kind)
	dst = binary.LittleEndian.AppendUint16(dst, uint16(len(vals)))
	dst = binary.LittleEndian.AppendUint64(dst, seq)
	dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(t))
	for _, v := range vals {
		dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
	}
	return dst
}

// ParsePacket decodes a bridge packet, writing its values into vals, which
// must have exactly as many entries as the packet carries. It allocates
// nothing.
func ParsePacket(p []byte, vals []float64) (kind byte, seq uint64, t float64, err error) {
	if len(p) < PacketHeaderSize || p[0] != 'M' || p[1] != 'B' || p[2] != 'F' || p[3] != 'U' || p[4] != packetVersion {
		return 0, 0, 0, errPacket
	}
	n := int(binary.LittleEndian.Uint16(p[6:]))
	if n != len(vals) || len(p) != PacketHeaderSize+8*n {
		return 0, 0, 0, errPacket
	}
	kind = p[5]
	seq = binary.LittleEndian.Uint64(p[8:])
	t = math.Float64frombits(binary.LittleEndian.Uint64(p[16:]))
	for i := range vals {
		vals[i] = math.Float64frombits(binary.LittleEndian.Uint64(p[PacketHeaderSize+8*i:]))
	}
	return kind, seq, t, nil
}

// Timeout policies of the UDP bridge.
const (
	timeoutHold = iota
	timeoutZero
	timeoutFail
)

// UDPStats counts the exchanges of a UDP bridge.
type UDPStats struct {
	// Name is the bridge's component name.
	Name string
	// Sent and Received count packets; Timeouts counts exchanges that got
	// no valid answer in time; Late counts answers to earlier exchanges and
	// Bad malformed or unexpected packets (both ignored).
	Sent, Received, Timeouts, Late, Bad int64
	// RoundTrip is the time from sending to receiving the valid answer.
	RoundTrip LatencyStats
}

// udpComp is the UDP bridge: a direct component.
type udpComp struct {
	comp
	remote, local string
	timeout       time.Duration
	policy        int
	outStart      []float64
	conn          *net.UDPConn
	sbuf, rbuf    []byte
	vals          []float64
	seq           uint64
	st            UDPStats
	rtt           histogram
}

func newUDPComp(el *errList, e *Element) *udpComp {
	c := &udpComp{comp: comp{name: e.Name, kind: e.Kind, line: e.Line, direct: true}}
	c.remote, c.local = e.str("remote"), e.str("local")
	if c.remote == "" {
		el.add(e.Line, "<udp> needs remote=\"host:port\" (the rig)")
	}
	c.ins, c.outs = ports(e.names("inputs")), ports(e.names("outputs"))
	if len(c.ins) == 0 && len(c.outs) == 0 {
		el.add(e.Line, "<udp> needs inputs (values sent to the rig) and/or outputs (values received)")
	}
	if len(c.ins) > 65535 || len(c.outs) > 65535 {
		el.add(e.Line, "<udp>: too many values for one packet")
	}
	to := e.num(el, "timeout", mxml.Time, 0.1)
	if !(to > 0) {
		el.add(e.Line, "<udp>: timeout %g s must be > 0", to)
	}
	c.timeout = time.Duration(to * 1e9)
	switch p := e.str("on-timeout"); p {
	case "", "hold":
		c.policy = timeoutHold
	case "zero":
		c.policy = timeoutZero
	case "fail":
		c.policy = timeoutFail
	default:
		el.add(e.Line, "<udp>: on-timeout %q: want hold, zero or fail", p)
	}
	c.outStart = make([]float64, len(c.outs))
	if s := e.matrix(el, "output-start"); s != nil {
		if f := flat(s); len(f) == len(c.outs) {
			copy(c.outStart, f)
		} else {
			el.add(e.Line, "<udp>: output-start has %d values for %d outputs", len(f), len(c.outs))
		}
	}
	c.st.Name = e.Name
	return c
}

func (c *udpComp) start(m *Master) error {
	raddr, err := net.ResolveUDPAddr("udp", c.remote)
	if err != nil {
		return fmt.Errorf("remote %q: %v", c.remote, err)
	}
	var laddr *net.UDPAddr
	if c.local != "" {
		if laddr, err = net.ResolveUDPAddr("udp", c.local); err != nil {
			return fmt.Errorf("local %q: %v", c.local, err)
		}
	}
	if c.conn, err = net.DialUDP("udp", laddr, raddr); err != nil {
		return err
	}
	c.sbuf = make([]byte, 0, PacketHeaderSize+8*len(c.ins))
	c.rbuf = make([]byte, PacketHeaderSize+8*len(c.outs)+512)
	c.vals = make([]float64, len(c.outs))
	copy(c.out, c.outStart)
	c.seq = 0
	return nil
}

// LocalAddr returns the bridge's local address once started (for tests and
// rigs that answer to the sender).
func (c *udpComp) LocalAddr() net.Addr {
	if c.conn == nil {
		return nil
	}
	return c.conn.LocalAddr()
}

func (c *udpComp) eval(t, dt float64) error {
	c.sbuf = AppendPacket(c.sbuf[:0], PacketToRig, c.seq, t, c.in)
	sent := time.Now()
	if _, err := c.conn.Write(c.sbuf); err != nil && !errors.Is(err, syscall.ECONNREFUSED) {
		return fmt.Errorf("sending to %s: %v", c.remote, err)
	}
	c.st.Sent++
	if err := c.conn.SetReadDeadline(sent.Add(c.timeout)); err != nil {
		return err
	}
	got := false
	for !got {
		n, err := c.conn.Read(c.rbuf)
		if err != nil {
			if errors.Is(err, syscall.ECONNREFUSED) {
				continue // the rig's port is closed (ICMP): keep waiting until the timeout
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				break
			}
			return fmt.Errorf("receiving from %s: %v", c.remote, err)
		}
		kind, seq, _, perr := ParsePacket(c.rbuf[:n], c.vals)
		switch {
		case perr != nil || kind != PacketFromRig:
			c.st.Bad++
		case seq < c.seq:
			c.st.Late++
		case seq > c.seq:
			c.st.Bad++
		case !allFinite(c.vals):
			c.st.Bad++
		default:
			got = true
		}
	}
	if got {
		c.st.Received++
		c.rtt.add(time.Since(sent))
		copy(c.out, c.vals)
	} else {
		c.st.Timeouts++
		switch c.policy {
		case timeoutZero:
			clear(c.out)
		case timeoutFail:
			return fmt.Errorf("no answer from the rig at %s to exchange %d within %v (on-timeout=\"fail\")", c.remote, c.seq, c.timeout)
		}
	}
	c.seq++
	return nil
}

func allFinite(v []float64) bool {
	for _, x := range v {
		if x-x != 0 {
			return false
		}
	}
	return true
}

func (c *udpComp) step(t, h float64) error { return nil }

func (c *udpComp) close() error {
	if c.conn == nil {
		return nil
	}
	err := c.conn.Close()
	c.conn = nil
	return err
}

// stats returns the bridge's counters.
func (c *udpComp) stats() UDPStats {
	s := c.st
	s.RoundTrip = c.rtt.stats()
	return s
}
