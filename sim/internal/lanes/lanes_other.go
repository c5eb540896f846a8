//go:build !amd64 || purego

package lanes

// vector is false: without the vector forms every function does no lanes
// and the caller's scalar loop does them all. The functions below are never
// reached (every exported function tests vector first); they exist so the
// package builds everywhere.
const vector = false

func unreachable() { panic("lanes: vector form called without vector instructions") }

func addQ(d, a, b *uint64, n int, tm uint64)                           { unreachable() }
func subQ(d, a, b *uint64, n int, tm uint64)                           { unreachable() }
func andQ(d, a, b *uint64, n int, tm uint64)                           { unreachable() }
func orQ(d, a, b *uint64, n int, tm uint64)                            { unreachable() }
func xorQ(d, a, b *uint64, n int, tm uint64)                           { unreachable() }
func shlQ(d, a, b *uint64, n int, tm uint64)                           { unreachable() }
func shrQ(d, a, b *uint64, n int, tm uint64)                           { unreachable() }
func addKQ(d, a *uint64, n int, k, tm uint64)                          { unreachable() }
func xorKQ(d, a *uint64, n int, k, tm uint64)                          { unreachable() }
func mulLo32Q(d, a, b *uint64, n int)                                  { unreachable() }
func mulWideS32Q(d, a, b *uint64, n int)                               { unreachable() }
func mulWideU32Q(d, a, b *uint64, n int)                               { unreachable() }
func setpQ(d, a, b *uint64, n int, shift, bias, gt, inv uint64) uint64 { unreachable(); return 0 }
func addF32Q(d, a, b *uint64, n int) int                               { unreachable(); return 0 }
func mulF32Q(d, a, b *uint64, n int) int                               { unreachable(); return 0 }
func fmaF32Q(d, a, b, c *uint64, n int) int                            { unreachable(); return 0 }
func addF64Q(d, a, b *uint64, n int) int                               { unreachable(); return 0 }
func mulF64Q(d, a, b *uint64, n int) int                               { unreachable(); return 0 }
func fmaF64Q(d, a, b, c *uint64, n int) int                            { unreachable(); return 0 }
func bit0Q(row *[32]uint64) uint32                                     { unreachable(); return 0 }
func stepsQ(row *[32]uint64, b0, step uint64) uint32                   { unreachable(); return 0 }
func zext32Q(d *uint64, s *uint32, n int)                              { unreachable() }
