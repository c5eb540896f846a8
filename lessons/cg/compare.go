package cg

import "math"

// EarlyFloor is where residual histories stop being comparable: CG
// iterations whose stage-0 residual is above EarlyFloor·‖b‖ (√ε, about
// 1.5e-8) are compared with a relative tolerance, later ones only for
// convergence.
//
// Why. Stages whose dot products add in another order than HPCCG's
// sequential loop (the ddot tree of stages 2–5, the strided partial sums of
// stage 5's SpMV, the chunked parallel CPU ddot) perturb r·r and p·Ap by a
// few ulps, a relative 1e-16 to 1e-15. CG carries such perturbations as
// relative errors of the same order while the residual is large (the
// 27-point matrix is well conditioned: κ < 60), so the histories agree to
// about 1e-14. Once the recursively updated residual falls towards
// rounding level relative to ‖b‖, it is driven by the rounding of its own
// updates and two orders of addition give residuals that differ by a factor
// of order one, while both keep falling (to 1e-117 at 8³). The same happens
// between HPCCG's serial and parallel CPU runs; it says nothing about the
// GPU. The true residual ‖b − A·x‖ of every stage stays at rounding level.
const EarlyFloor = 1.4901161193847656e-08 // 2^-26 = √ε

// EarlyTolerance returns the bound on the relative difference from stage 0
// of a stage's residuals above EarlyFloor·‖b‖, for n rows: n·ε (the
// classical bound γ_n ≈ n·ε on the relative error of an n-term sum of
// positive terms, which r·r is), but at least 1e-12. Measured: 6e-15 at 8³
// and 10³, 1e-13 at 20³.
func EarlyTolerance(n int) float64 {
	const eps = 0x1p-52
	return max(1e-12, float64(n)*eps)
}

// ResidualComparison compares a stage's residual history with stage 0's.
type ResidualComparison struct {
	Identical bool `json:"identical"` // every residual has the same bits
	// FirstDiff is the first iteration (1-based) whose residual differs
	// in any bit; 0 when Identical.
	FirstDiff int `json:"first_diff,omitempty"`
	// EarlyIters is how many iterations have a stage-0 residual above
	// EarlyFloor·‖b‖; MaxEarlyRelDiff is the largest relative difference
	// over them.
	EarlyIters      int     `json:"early_iters"`
	MaxEarlyRelDiff float64 `json:"max_early_rel_diff"`
	// Tolerance is EarlyTolerance(rows); WithinTolerance: same iteration
	// count and MaxEarlyRelDiff ≤ Tolerance.
	Tolerance       float64 `json:"tolerance"`
	WithinTolerance bool    `json:"within_tolerance"`
}

// CompareResiduals compares got's residual history with ref's (stage 0).
// ‖b‖ is ref's initial residual, since x0 = 0.
func CompareResiduals(ref, got *StageResult) ResidualComparison {
	c := ResidualComparison{Identical: len(ref.Residuals) == len(got.Residuals)}
	floor := EarlyFloor * ref.InitialResidual
	for k, want := range ref.Residuals {
		if k >= len(got.Residuals) {
			break
		}
		v := got.Residuals[k]
		if math.Float64bits(v) != math.Float64bits(want) && c.FirstDiff == 0 {
			c.Identical = false
			c.FirstDiff = k + 1
		}
		if want > floor {
			c.EarlyIters++
			c.MaxEarlyRelDiff = max(c.MaxEarlyRelDiff, math.Abs(v-want)/want)
		}
	}
	if !c.Identical && c.FirstDiff == 0 {
		c.FirstDiff = min(len(ref.Residuals), len(got.Residuals)) + 1
	}
	c.Tolerance = EarlyTolerance(len(ref.X))
	if ref.Rows > 0 {
		c.Tolerance = EarlyTolerance(ref.Rows)
	}
	c.WithinTolerance = ref.Iterations == got.Iterations && c.MaxEarlyRelDiff <= c.Tolerance
	return c
}
