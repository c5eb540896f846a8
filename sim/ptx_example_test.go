package sim_test

import (
	"context"
	"fmt"

	"github.com/warplab/warplab/sim"
	"github.com/warplab/warplab/sim/ptx"
)

// scalePTX is `y[i] = 2 * x[i]` for i < n, as nvcc would emit it
// (shortened).
const scalePTX = `
.version 7.8
.target sm_75
.address_size 64

.visible .entry scale(
	.param .u64 scale_param_0,
	.param .u64 scale_param_1,
	.param .u32 scale_param_2
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<3>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<7>;

	ld.param.u64 	%rd1, [scale_param_0];
	ld.param.u64 	%rd2, [scale_param_1];
	ld.param.u32 	%r1, [scale_param_2];
	mov.u32 	%r2, %ctaid.x;
	mov.u32 	%r3, %ntid.x;
	mov.u32 	%r4, %tid.x;
	mad.lo.s32 	%r5, %r2, %r3, %r4;
	setp.ge.s32 	%p1, %r5, %r1;
	@%p1 bra 	$L__done;
	mul.wide.s32 	%rd3, %r5, 4;
	add.s64 	%rd4, %rd1, %rd3;
	ld.global.f32 	%f1, [%rd4];
	add.f32 	%f2, %f1, %f1;
	add.s64 	%rd5, %rd2, %rd3;
	st.global.f32 	[%rd5], %f2;
$L__done:
	ret;
}
`

// ExampleDevice_LaunchPTX runs a kernel from its PTX: parse the module once,
// decode the kernel once, launch it with buffers and scalars in parameter
// order. The last warp of the 100-element launch has 4 active lanes, so its
// load touches one sector.
func ExampleDevice_LaunchPTX() {
	mod, err := ptx.Parse("scale.ptx", scalePTX)
	if err != nil {
		fmt.Println(err)
		return
	}
	k, err := sim.NewPTXKernel(mod, "scale")
	if err != nil {
		fmt.Println(err)
		return
	}
	m, err := sim.ModelByKey("h200")
	if err != nil {
		fmt.Println(err)
		return
	}
	dev := sim.NewDevice(m)
	x, err := sim.Upload(dev, "x", make([]float32, 100))
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range x.Data {
		x.Data[i] = float32(i)
	}
	y, err := sim.Alloc[float32](dev, "y", 100)
	if err != nil {
		fmt.Println(err)
		return
	}
	st, err := dev.LaunchPTX(context.Background(), k, sim.Dim1(1), sim.Dim1(128), 0, x, y, int32(100))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("y[99] =", y.Data[99])
	fmt.Printf("loads: %d requests, %d sectors\n", st.GlobalLoad.Requests, st.GlobalLoad.Sectors)
	fmt.Println(st.Sites[0].Label)
	// Output:
	// y[99] = 198
	// loads: 4 requests, 13 sectors
	// scale.ptx:28 ld.global.f32 %f1, [%rd4]
}
