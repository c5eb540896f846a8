package sim_test

import (
	"fmt"

	"github.com/warplab/warplab/sim"
)

// Example launches saxpy, y = a*x + y, on a simulated H200 and reads its
// counters: every warp loads 32 consecutive floats of x and of y (4 sectors
// each) and stores 32 to y. DRAM reads come in 64-byte granules (two
// sectors), so each 4,000-byte input costs 4,032 bytes: its last sector's
// pair comes too.
func Example() {
	m, err := sim.ModelByKey("h200")
	if err != nil {
		fmt.Println(err)
		return
	}
	dev := sim.NewDevice(m)
	const n = 1000
	hostX := make([]float32, n)
	for i := range hostX {
		hostX[i] = float32(i)
	}
	x, err := sim.Upload(dev, "x", hostX)
	if err != nil {
		fmt.Println(err)
		return
	}
	y, err := sim.Alloc[float32](dev, "y", n)
	if err != nil {
		fmt.Println(err)
		return
	}
	a := float32(2)

	// __global__ void saxpy(int n, float a, const float *x, float *y)
	// Launch: 1-D, grid.x*block.x >= n. One warp: 32 consecutive elements.
	k := sim.NewKernel("saxpy", false)
	k.Body = func(t *sim.Thread) {
		i := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X // int i = blockIdx.x*blockDim.x + threadIdx.x;
		if i < n {                                     // if (i < n)
			y.St(t, i, a*x.Ld(t, i)+y.Ld(t, i)) //          y[i] = a * x[i] + y[i];
		}
	}
	st, err := dev.Launch(k, sim.Dim1((n+255)/256), sim.Dim1(256), 0)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("y[999] =", y.Data[999])
	fmt.Printf("loads:  %d requests, %d sectors (%.2f per request)\n",
		st.GlobalLoad.Requests, st.GlobalLoad.Sectors, st.GlobalLoad.SectorsPerRequest())
	fmt.Printf("stores: %d requests, %d sectors\n", st.GlobalStore.Requests, st.GlobalStore.Sectors)
	for _, s := range st.Sites {
		fmt.Printf("  %-6s %d requests, %d sectors, useful share %.3f\n", s.Label, s.Requests, s.Sectors, s.UsefulShare())
	}
	fmt.Println("DRAM bytes read:", st.DRAMReadBytes, "written:", st.DRAMWriteBytes)
	fmt.Println("time:", st.Time.Kind)
	// Output:
	// y[999] = 1998
	// loads:  64 requests, 250 sectors (3.91 per request)
	// stores: 32 requests, 125 sectors
	//   x ld   32 requests, 125 sectors, useful share 0.977
	//   y ld   32 requests, 125 sectors, useful share 0.977
	//   y st   32 requests, 125 sectors, useful share 0.977
	// DRAM bytes read: 8064 written: 4000
	// time: modeled
}

// Example_bankConflicts reads a column of a 32×32 float tile in shared
// memory, as the naive transpose does: all 32 words sit in one bank, so the
// request takes 32 wavefronts. Padding each row to 33 floats spreads the
// column over all 32 banks.
func Example_bankConflicts() {
	m, err := sim.ModelByKey("h200")
	if err != nil {
		fmt.Println(err)
		return
	}
	dev := sim.NewDevice(m)
	for _, width := range []int{32, 33} {
		// One warp: lane L reads tile[L][0].
		k := sim.NewKernel("column", false)
		k.Body = func(t *sim.Thread) {
			tile := sim.SharedArray[float32](t, "tile", 32*width)
			tile.Ld(t, t.ThreadIdx.X*width)
		}
		st, err := dev.Launch(k, sim.Dim1(1), sim.Dim1(32), 0)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("row width %d: %d request, %d wavefronts, %d bank conflicts\n",
			width, st.SharedLoad.Requests, st.SharedLoad.Wavefronts, st.SharedLoad.Conflicts)
	}
	// Output:
	// row width 32: 1 request, 32 wavefronts, 31 bank conflicts
	// row width 33: 1 request, 1 wavefronts, 0 bank conflicts
}

// ExampleFault shows a sanitizer report: the kernel forgot its bounds check.
func ExampleFault() {
	m, err := sim.ModelByKey("h200")
	if err != nil {
		fmt.Println(err)
		return
	}
	dev := sim.NewDevice(m)
	v, err := sim.Alloc[float32](dev, "v", 100)
	if err != nil {
		fmt.Println(err)
		return
	}
	k := sim.NewKernel("scaleNoGuard", false)
	k.Body = func(t *sim.Thread) {
		i := t.BlockIdx.X*t.BlockDim.X + t.ThreadIdx.X
		v.St(t, i, 2*v.Ld(t, i)) // missing: if (i < n)
	}
	_, err = dev.Launch(k, sim.Dim1(1), sim.Dim1(128), 0)
	fmt.Println(err)
	// Output:
	// sim: kernel scaleNoGuard: out of bounds in block (0,0,0) thread (100,0,0): v[100] (length 100) at site "v ld": load of element 100, but the buffer holds 100
}
