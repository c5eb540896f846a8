//go:build cuda

package libs

import (
	"context"
	"sort"
	"testing"

	"github.com/warplab/warplab/gpuext"
)

// BenchmarkLaunchPath is one SpMV call (spmvVector2 on uniform-2^14, the
// lesson's smallest corpus size) under the lessons' protocol
// (gpuext.Device.Time: 3 warm-ups, then events around 10 calls), timed
// three ways in one process: a bare Device.Launch of the kernel, the
// lesson's launches planned once (plan, runPlan: what run times), and the
// method resolved on every call (launch: what run timed before
// 2026-12-07). Each reports the median over b.N timings in µs a call
// (-test.benchtime 41x for 41). Run on a GPU host:
//
//	go test -c -tags cuda -o libs.test ./lessons/libs
//	./libs.test -test.run '^$' -test.bench LaunchPath -test.benchtime 41x
//
// evidence/libs-launchpath-h100-2026-12-07 holds its runs.
func BenchmarkLaunchPath(b *testing.B) {
	dev, err := gpuext.Open("gpu")
	if err != nil {
		b.Skip(err)
	}
	defer dev.Close()
	in, err := FamilyInput("uniform", 1<<14, CorpusSeed)
	if err != nil {
		b.Fatal(err)
	}
	mod := Module()
	d, err := upload(dev, in)
	if err != nil {
		b.Fatal(err)
	}
	defer d.free()
	ctx := context.Background()
	const method = "vector2"
	steps, err := d.plan(mod, method)
	if err != nil {
		b.Fatal(err)
	}
	s := steps[0] // vector2 is one launch
	for _, c := range []struct {
		name string
		f    func() error
	}{
		{"bare", func() error { _, err := dev.Launch(ctx, s.k, s.cfg, s.args...); return err }},
		{"planned", func() error { _, _, err := runPlan(ctx, dev, steps); return err }},
		{"resolved-each-call", func() error { _, _, err := d.launch(ctx, dev, mod, method); return err }},
	} {
		b.Run(c.name, func(b *testing.B) {
			us := make([]float64, 0, b.N)
			for range b.N {
				t, err := dev.Time(c.f, 3, 10)
				if err != nil {
					b.Fatal(err)
				}
				us = append(us, t.MeanMs*1e3)
			}
			sort.Float64s(us)
			b.ReportMetric(us[len(us)/2], "us/call")
		})
	}
}
