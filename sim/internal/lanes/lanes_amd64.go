//go:build amd64 && !purego

package lanes

//go:generate go run gen_amd64.go

import "golang.org/x/sys/cpu"

// vector is whether this CPU has the vector forms (lanes_amd64.s). It is
// set once, before any call, from what the CPU reports.
var vector = cpu.X86.HasAVX2 && cpu.X86.HasFMA

//go:noescape
func addR(d, a, b *[32]uint64, tm uint64, mask uint32)

func subR(d, a, b *[32]uint64, tm uint64, mask uint32)

func andR(d, a, b *[32]uint64, tm uint64, mask uint32)

func orR(d, a, b *[32]uint64, tm uint64, mask uint32)

func xorR(d, a, b *[32]uint64, tm uint64, mask uint32)

func shlR(d, a, b *[32]uint64, tm uint64, mask uint32)

func shrR(d, a, b *[32]uint64, tm uint64, mask uint32)

func mulLoR(d, a, b *[32]uint64, tm uint64, mask uint32)

func mulWideSR(d, a, b *[32]uint64, tm uint64, mask uint32)

func mulWideUR(d, a, b *[32]uint64, tm uint64, mask uint32)

func addKR(d, a *[32]uint64, k, tm uint64, mask uint32)

func xorKR(d, a *[32]uint64, k, tm uint64, mask uint32)

func setpEqR(d, a, b *[32]uint64, shift, bias, inv uint64, mask uint32) uint32

func setpGtR(d, a, b *[32]uint64, shift, bias, inv uint64, mask uint32) uint32

func addF32R(d, a, b *[32]uint64, mask uint32) uint32

func mulF32R(d, a, b *[32]uint64, mask uint32) uint32

func fmaF32R(d, a, b, c *[32]uint64, mask uint32) uint32

func addF64R(d, a, b *[32]uint64, mask uint32) uint32

func mulF64R(d, a, b *[32]uint64, mask uint32) uint32

func fmaF64R(d, a, b, c *[32]uint64, mask uint32) uint32

func bit0Q(row *[32]uint64) uint32

func stepsQ(row *[32]uint64, b0, step uint64) uint32

func zext32Q(d *uint64, s *uint32, n int)
