package cosim

import (
	"fmt"
	"math"
	"net"
	"strings"
	"testing"
	"time"
)

// rigPeer is a bounded test rig: a PD position controller on the other end
// of the UDP bridge. It answers `answers` exchanges and stops. On exchange
// 10 it first sends garbage, on exchange 20 first a repeat of its answer to
// exchange 19: the master must ignore both.
type rigPeer struct {
	conn    *net.UDPConn
	answers int
	got     [][2]float64 // (x, vx) received, by sequence number
	seqs    []uint64
	times   []float64
	err     error
	done    chan struct{}
}

const rigKp, rigKd, rigTarget = 50.0, 10.0, 1.0

func startRig(t *testing.T, answers int) *rigPeer {
	t.Helper()
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	p := &rigPeer{conn: conn, answers: answers, done: make(chan struct{})}
	go p.run()
	t.Cleanup(func() { conn.Close(); <-p.done })
	return p
}

func (p *rigPeer) run() {
	defer close(p.done)
	defer p.conn.Close()
	buf := make([]byte, 1500)
	vals := make([]float64, 2)
	var out []byte
	var lastAnswer []byte
	for i := 0; i < p.answers; i++ {
		p.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		n, from, err := p.conn.ReadFromUDP(buf)
		if err != nil {
			p.err = err
			return
		}
		kind, seq, tm, err := ParsePacket(buf[:n], vals)
		if err != nil || kind != PacketToRig {
			p.err = fmt.Errorf("bad packet from the master: %v (kind %d)", err, kind)
			return
		}
		p.seqs = append(p.seqs, seq)
		p.times = append(p.times, tm)
		p.got = append(p.got, [2]float64{vals[0], vals[1]})
		F := -rigKp*(vals[0]-rigTarget) - rigKd*vals[1]
		switch seq {
		case 10:
			p.conn.WriteToUDP([]byte("not a packet"), from)
		case 20:
			p.conn.WriteToUDP(lastAnswer, from)
		}
		out = AppendPacket(out[:0], PacketFromRig, seq, tm, []float64{F})
		lastAnswer = append(lastAnswer[:0], out...)
		if _, err := p.conn.WriteToUDP(out, from); err != nil {
			p.err = err
			return
		}
	}
}

func rigConfig(t *testing.T, dir string, addr net.Addr, policy string) *Config {
	t.Helper()
	writeFile(t, dir, "body.xml", freeBody)
	p := writeFile(t, dir, "rig-"+policy+".xml", fmt.Sprintf(`<cosim name="rig">
  <settings end="0.21 s" step="1 ms"/>
  <model name="plant" path="body.xml"/>
  <udp name="rig" remote="%s" inputs="x vx" outputs="F" timeout="100 ms" on-timeout="%s" output-start="0"/>
  <connect from="plant.x" to="rig.x"/>
  <connect from="plant.vx" to="rig.vx"/>
  <connect from="rig.F" to="plant.F"/>
</cosim>`, addr, policy))
	cfg, err := LoadConfig(p)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// The UDP bridge closes a loop through a rig on loopback: the rig receives
// the plant outputs of every exchange in order, the loop follows the
// difference equations of the sampled PD law exactly, and when the rig
// stops the timeout policy applies.
func TestUDPLoopback(t *testing.T) {
	const answers = 200
	for _, policy := range []string{"hold", "zero", "fail"} {
		t.Run(policy, func(t *testing.T) {
			rig := startRig(t, answers)
			cfg := rigConfig(t, t.TempDir(), rig.conn.LocalAddr(), policy)
			m, err := New(cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			w := &memWriter{}
			sum, err := m.Run(RunOptions{Writer: w})
			<-rig.done
			if rig.err != nil {
				t.Fatal(rig.err)
			}
			if policy == "fail" {
				if err == nil || !strings.Contains(err.Error(), "no answer from the rig") || !strings.Contains(err.Error(), "exchange 200") {
					t.Fatalf("error %v, want a timeout of exchange 200", err)
				}
				if sum.Steps != answers {
					t.Errorf("stopped after %d steps, want %d", sum.Steps, answers)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			// 211 exchanges: at t = 0 and after each of 210 steps.
			u := sum.UDP[0]
			if u.Sent != 211 || u.Received != answers || u.Timeouts != 211-answers || u.Late != 1 || u.Bad != 1 {
				t.Errorf("udp counters %+v: want 211 sent, %d received, %d timeouts, 1 late, 1 bad", u, answers, 211-answers)
			}
			if u.RoundTrip.N != answers {
				t.Errorf("%d round-trip samples, want %d", u.RoundTrip.N, answers)
			}
			xs, vs, Fs, ts := w.col(t, "plant.x"), w.col(t, "plant.vx"), w.col(t, "rig.F"), w.col(t, "time")
			for k := 0; k < answers; k++ {
				if rig.seqs[k] != uint64(k) || rig.times[k] != ts[k] {
					t.Fatalf("rig got sequence %d at t = %g as its packet %d, want %d at %g", rig.seqs[k], rig.times[k], k, k, ts[k])
				}
				if rig.got[k] != [2]float64{xs[k], vs[k]} {
					t.Fatalf("rig got %v at exchange %d, the plant output was (%g, %g)", rig.got[k], k, xs[k], vs[k])
				}
			}
			// Sampled PD loop, exact for the free body (see freeBody).
			const h = 1e-3
			x, v := 0.0, 0.0
			for k := 0; k < answers; k++ {
				F := -rigKp*(x-rigTarget) - rigKd*v
				if math.Abs(xs[k]-x) > 1e-12 || math.Abs(Fs[k]-F) > 1e-9 {
					t.Fatalf("exchange %d: x = %.15g, F = %.15g; reference %.15g, %.15g", k, xs[k], Fs[k], x, F)
				}
				x, v = x+h*v+h*h*F/(2*bodyMass), v+h*F/bodyMass
			}
			for k := answers; k < len(Fs); k++ {
				want := Fs[answers-1]
				if policy == "zero" {
					want = 0
				}
				if Fs[k] != want {
					t.Fatalf("after the rig stopped, F[%d] = %g, want %g (on-timeout=%s)", k, Fs[k], want, policy)
				}
			}
		})
	}
}

func TestPacketRoundTrip(t *testing.T) {
	vals := []float64{1.5, -2, math.Inf(1)}
	p := AppendPacket(nil, PacketToRig, 42, 0.125, vals)
	if len(p) != PacketHeaderSize+24 || string(p[:4]) != "MBFU" {
		t.Fatalf("packet %x", p)
	}
	got := make([]float64, 3)
	k, seq, tm, err := ParsePacket(p, got)
	if err != nil || k != PacketToRig || seq != 42 || tm != 0.125 || got[0] != 1.5 || got[1] != -2 || !math.IsInf(got[2], 1) {
		t.Errorf("parsed %d %d %g %v %v", k, seq, tm, got, err)
	}
	for _, bad := range [][]byte{p[:len(p)-1], append([]byte("XBFU"), p[4:]...), p[:10]} {
		if _, _, _, err := ParsePacket(bad, got); err == nil {
			t.Errorf("malformed packet %x accepted", bad)
		}
	}
	if _, _, _, err := ParsePacket(p, got[:2]); err == nil {
		t.Error("packet with 3 values accepted for 2")
	}
	if a := testing.AllocsPerRun(100, func() { p = AppendPacket(p[:0], PacketFromRig, 1, 0, vals); ParsePacket(p, got) }); a != 0 {
		t.Errorf("%g allocations per packet", a)
	}
}
