package timing

import "math"

// L1Cap is what the L1's capacity model (sim's worker.l1Lost) needs of a
// launch, worked out once: Press turns a re-touched sector's age (lines
// its warp touched since) into the curve's ρ; Safe is the largest age the
// curve never loses (math.MaxUint32: the model is off); Far is the age
// past which a lost sector has left L2 too; From and Span are the curve's
// start and width (Constants.L1MissFrom, L1MissTo − L1MissFrom).
type L1Cap struct {
	Press, From, Span float64
	Safe, Far         uint32
}

// L1Off is the capacity model switched off: no age is ever lost.
var L1Off = L1Cap{Safe: math.MaxUint32, Far: math.MaxUint32}

// L1Capacity works out L1Cap for a launch. ρ's scale is the warps an SM
// holds while the launch runs (the occupancy, or fewer when the grid does
// not fill the SMs) over the L1's data capacity in 128-byte lines (L1Bytes
// less the resident blocks' shared memory; regs, the kernel's registers
// per thread, 0 when not known, limits the occupancy, at most L1DataBytes and never
// less than what the largest shared carve-out leaves). A lost sector has
// left L2 too when, in its age, every SM's warps touched as many lines as
// the L2 holds. A GPU without L1Bytes or constants with no curve have the
// model off.
func L1Capacity(g *GPU, c *Constants, blocks, warps, threads, shBytes, regs int) L1Cap {
	if g.L1Bytes <= 0 || g.SMs <= 0 || c.L1MissTo <= c.L1MissFrom {
		return L1Off
	}
	per := float64(g.BlocksPerSM(warps, threads, shBytes, regs))
	resident := min(per, float64(blocks)/float64(g.SMs)) * float64(warps)
	data := min(g.L1DataBytes, g.L1Bytes-int(math.Ceil(resident/float64(warps)))*shBytes)
	data = max(data, g.L1Bytes-g.SharedPerSM, 128)
	l := L1Cap{Press: resident / float64(data/128), From: c.L1MissFrom, Span: c.L1MissTo - c.L1MissFrom}
	l.Safe = uint32(min(l.From/l.Press, math.MaxUint32))
	l.Far = uint32(min(float64(g.L2Bytes)/(resident*float64(g.SMs)*128), math.MaxUint32))
	return l
}
