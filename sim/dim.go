package sim

import "fmt"

// Dim3 is CUDA's dim3: the shape of a grid (in blocks) or of a block (in
// threads). X varies fastest, so the linear id of (x, y, z) is
// x + y*X + z*X*Y, which is how threads are grouped into warps.
type Dim3 struct{ X, Y, Z int }

// Dim1 returns {x, 1, 1}, the shape of every one-dimensional launch.
func Dim1(x int) Dim3 { return Dim3{x, 1, 1} }

// Dim2 returns {x, y, 1}, the shape of tiled two-dimensional launches.
func Dim2(x, y int) Dim3 { return Dim3{x, y, 1} }

// Count is the number of threads (or blocks) the shape holds.
func (d Dim3) Count() int { return d.X * d.Y * d.Z }

// String prints the shape the way CUDA programmers write it, (x,y,z).
func (d Dim3) String() string { return fmt.Sprintf("(%d,%d,%d)", d.X, d.Y, d.Z) }

// unlinear turns a linear id back into coordinates of shape d.
func (d Dim3) unlinear(i int) Dim3 {
	x := i % d.X
	i /= d.X
	return Dim3{x, i % d.Y, i / d.Y}
}
