package bench

import (
	"fmt"
	"io"
	"runtime"
	"runtime/metrics"
	"sort"
	"time"

	"github.com/goagx/agx/agx"
	"github.com/goagx/agx/tensor"
)

// CheckpointName is the name `agx bench -mem -run` matches to select the
// checkpointing comparison.
const CheckpointName = "checkpoint_deep_mlp"

// DeepMLP is the model of the checkpointing comparison: Depth layers of
// tanh(h·W + b), Width wide, on a Batch×Width float32 input, trained with a
// sum-of-squares loss; with Checkpoint, every Segment layers form one
// checkpointed segment.
type DeepMLP struct {
	Depth, Width, Batch, Segment int
}

// DefaultDeepMLP is the model `agx bench -mem` measures: 24 layers of 512,
// batch 256, checkpointed every 4 layers (6 segments, about √24).
var DefaultDeepMLP = DeepMLP{Depth: 24, Width: 512, Batch: 256, Segment: 4}

// CheckpointResult compares one training step of a DeepMLP with and without
// Checkpoint.
type CheckpointResult struct {
	Model DeepMLP
	Steps int
	// PeakPlain and PeakCkpt are the most memory held at once during a step
	// above what was held before it (parameters, input, gradients): the
	// activations kept for backward (and, with Checkpoint, the recomputed
	// ones). Measured exactly in one extra step: a full collection and a
	// read of the live heap at the end of the forward and whenever a layer's
	// gradient is ready in backward (a tensor hook), the points where the
	// memory held peaks.
	PeakPlain, PeakCkpt uint64
	// Base is the live heap before a step (parameters, input, gradients, and
	// the tensor package's heap floor).
	Base uint64
	// TimePlain and TimeCkpt are the median wall time of one step, with the
	// default collector settings, over Steps steps.
	TimePlain, TimeCkpt time.Duration
}

// step returns one training step of the model: zero the gradients, forward,
// backward.
func (m DeepMLP) step(ckpt bool, probe func()) func() {
	g := tensor.NewGenerator(11)
	x := agx.New(g.Randn(tensor.Float32, m.Batch, m.Width))
	scale := 1 / float64(m.Width)
	var ws, bs []*agx.Tensor
	for range m.Depth {
		ws = append(ws, agx.New(g.Uniform(tensor.Float32, -scale*2, scale*2, m.Width, m.Width)).SetRequiresGrad(true))
		bs = append(bs, agx.New(g.Uniform(tensor.Float32, -0.1, 0.1, m.Width)).SetRequiresGrad(true))
	}
	seg := max(m.Segment, 1)
	return func() {
		for i := range ws {
			ws[i].ZeroGrad()
			bs[i].ZeroGrad()
		}
		h := x
		for l0 := 0; l0 < m.Depth; l0 += seg {
			l1 := min(l0+seg, m.Depth)
			run := func(in ...*agx.Tensor) *agx.Tensor {
				h := in[0]
				for l := l0; l < l1; l++ {
					h = h.MatMul(ws[l]).Add(bs[l]).Tanh()
					if probe != nil {
						// Fires in backward when the layer's gradient is ready.
						h.RegisterHook(func(g *agx.Tensor) *agx.Tensor { probe(); return nil })
					}
				}
				return h
			}
			if ckpt {
				h = agx.Checkpoint(run, h)
			} else {
				h = run(h)
			}
		}
		loss := h.Mul(h).Mean()
		if probe != nil {
			probe()
		}
		loss.Backward()
	}
}

// CheckpointMemory measures m's training step with and without Checkpoint,
// steps times each, in this process.
func CheckpointMemory(m DeepMLP, steps int) CheckpointResult {
	steps = max(steps, 1)
	r := CheckpointResult{Model: m, Steps: steps}
	for _, ck := range []bool{false, true} {
		var peak uint64
		probe := func() { peak = max(peak, liveHeap()) }
		measured := m.step(ck, probe)
		measured() // warm up: the gradients exist from here on
		base := liveHeap()
		peak = 0
		measured()
		t := stepTime(m.step(ck, nil), steps)
		if ck {
			r.PeakCkpt, r.TimeCkpt = peak-min(peak, base), t
		} else {
			r.PeakPlain, r.TimePlain, r.Base = peak-min(peak, base), t, base
		}
	}
	return r
}

// liveHeap collects and returns the bytes still reachable.
func liveHeap() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func stepTime(call func(), steps int) time.Duration {
	runtime.GC()
	ts := make([]time.Duration, steps)
	for i := range ts {
		t0 := time.Now()
		call()
		ts[i] = time.Since(t0)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	return ts[len(ts)/2]
}

// WriteCheckpointTable prints the comparison.
func WriteCheckpointTable(w io.Writer, r CheckpointResult) error {
	m := r.Model
	fmt.Fprintf(w, "\n%s: %d layers of tanh(h·W+b), width %d, batch %d, float32; Checkpoint every %d layers; %d steps each\n",
		CheckpointName, m.Depth, m.Width, m.Batch, m.Segment, r.Steps)
	fmt.Fprintf(w, "peak = most memory held during a step (live heap after a full GC at the end of forward and at each layer in backward) above the %s held before it\n", fmtBytes(float64(r.Base)))
	tw := newTable(w, "VARIANT\tPEAK HELD\tSTEP TIME")
	fmt.Fprintf(tw, "plain\t%s\t%v\n", fmtBytes(float64(r.PeakPlain)), r.TimePlain.Round(time.Microsecond))
	fmt.Fprintf(tw, "checkpoint\t%s\t%v\n", fmtBytes(float64(r.PeakCkpt)), r.TimeCkpt.Round(time.Microsecond))
	if err := tw.Flush(); err != nil {
		return err
	}
	saved := 0.0
	if r.PeakPlain > 0 {
		saved = 100 * (1 - float64(r.PeakCkpt)/float64(r.PeakPlain))
	}
	ratio := 0.0
	if r.TimePlain > 0 {
		ratio = float64(r.TimeCkpt) / float64(r.TimePlain)
	}
	_, err := fmt.Fprintf(w, "checkpoint saves %.0f%% of the peak memory and takes %.2f× the time per step\n", saved, ratio)
	return err
}
