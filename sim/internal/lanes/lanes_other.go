//go:build !amd64 || purego

package lanes

// vector is false: without the vector forms every function does no lanes
// and the caller's scalar loop does them all. The functions below are never
// reached (every exported function tests vector first); they exist so the
// package builds everywhere.
const vector = false

func unreachable() { panic("lanes: vector form called without vector instructions") }

func addR(d, a, b *[32]uint64, tm uint64, mask uint32)      { unreachable() }
func subR(d, a, b *[32]uint64, tm uint64, mask uint32)      { unreachable() }
func andR(d, a, b *[32]uint64, tm uint64, mask uint32)      { unreachable() }
func orR(d, a, b *[32]uint64, tm uint64, mask uint32)       { unreachable() }
func xorR(d, a, b *[32]uint64, tm uint64, mask uint32)      { unreachable() }
func shlR(d, a, b *[32]uint64, tm uint64, mask uint32)      { unreachable() }
func shrR(d, a, b *[32]uint64, tm uint64, mask uint32)      { unreachable() }
func mulLoR(d, a, b *[32]uint64, tm uint64, mask uint32)    { unreachable() }
func mulWideSR(d, a, b *[32]uint64, tm uint64, mask uint32) { unreachable() }
func mulWideUR(d, a, b *[32]uint64, tm uint64, mask uint32) { unreachable() }
func addKR(d, a *[32]uint64, k, tm uint64, mask uint32)     { unreachable() }
func xorKR(d, a *[32]uint64, k, tm uint64, mask uint32)     { unreachable() }
func setpEqR(d, a, b *[32]uint64, shift, bias, inv uint64, mask uint32) uint32 {
	unreachable()
	return 0
}
func setpGtR(d, a, b *[32]uint64, shift, bias, inv uint64, mask uint32) uint32 {
	unreachable()
	return 0
}
func addF32R(d, a, b *[32]uint64, mask uint32) uint32    { unreachable(); return 0 }
func mulF32R(d, a, b *[32]uint64, mask uint32) uint32    { unreachable(); return 0 }
func fmaF32R(d, a, b, c *[32]uint64, mask uint32) uint32 { unreachable(); return 0 }
func addF64R(d, a, b *[32]uint64, mask uint32) uint32    { unreachable(); return 0 }
func mulF64R(d, a, b *[32]uint64, mask uint32) uint32    { unreachable(); return 0 }
func fmaF64R(d, a, b, c *[32]uint64, mask uint32) uint32 { unreachable(); return 0 }
func bit0Q(row *[32]uint64) uint32                       { unreachable(); return 0 }
func stepsQ(row *[32]uint64, b0, step uint64) uint32     { unreachable(); return 0 }
func zext32Q(d *uint64, s *uint32, n int)                { unreachable() }
