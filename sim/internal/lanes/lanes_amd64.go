//go:build amd64 && !purego

package lanes

//go:generate go run gen_amd64.go

import "golang.org/x/sys/cpu"

// vector is whether this CPU has the vector forms (lanes_amd64.s). It is
// set once, before any call, from what the CPU reports.
var vector = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func addQ(d, a, b *uint64, n int, tm uint64)

//go:noescape
func subQ(d, a, b *uint64, n int, tm uint64)

//go:noescape
func andQ(d, a, b *uint64, n int, tm uint64)

//go:noescape
func orQ(d, a, b *uint64, n int, tm uint64)

//go:noescape
func xorQ(d, a, b *uint64, n int, tm uint64)

//go:noescape
func shlQ(d, a, b *uint64, n int, tm uint64)

//go:noescape
func shrQ(d, a, b *uint64, n int, tm uint64)

//go:noescape
func addKQ(d, a *uint64, n int, k, tm uint64)

//go:noescape
func xorKQ(d, a *uint64, n int, k, tm uint64)

//go:noescape
func mulLo32Q(d, a, b *uint64, n int)

//go:noescape
func mulWideS32Q(d, a, b *uint64, n int)

//go:noescape
func mulWideU32Q(d, a, b *uint64, n int)

//go:noescape
func setpQ(d, a, b *uint64, n int, shift, bias, gt, inv uint64) uint64

//go:noescape
func addF32Q(d, a, b *uint64, n int) int

//go:noescape
func mulF32Q(d, a, b *uint64, n int) int

//go:noescape
func fmaF32Q(d, a, b, c *uint64, n int) int

//go:noescape
func addF64Q(d, a, b *uint64, n int) int

//go:noescape
func mulF64Q(d, a, b *uint64, n int) int

//go:noescape
func fmaF64Q(d, a, b, c *uint64, n int) int

//go:noescape
func bit0Q(row *[32]uint64) uint32

//go:noescape
func stepsQ(row *[32]uint64, b0, step uint64) uint32

//go:noescape
func zext32Q(d *uint64, s *uint32, n int)
