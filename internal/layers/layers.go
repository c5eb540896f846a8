// Package layers states the import layering the folders promise and lets
// a test hold the tree to it: each package has a rank, and a package may
// import only packages of a lower rank (the standard library and third-party
// modules are below everything). The table is the architecture in one place:
//
//	0  table, sparse, sim/ptx, sim/timing, notebooks/ptxcache and the
//	   low-level helpers (internal/testenv, cusrc, ncu, browser, evidence, stats)
//	1  sparse/..., sim/internal/...
//	2  sim
//	3  gpuext, internal/launchrec (the launch records read back, for lab)
//	4  plots/chart, internal/ptxcheck, internal/launchbench, lab (the
//	   environment, read once at the edge into lab.Options)
//	5  plots, lessons/lesson
//	6  lessons/<name> (no lesson imports another), lessons/lesson/lessontest
//	7  lessons/all (the list of lessons), internal/sweep
//	8  timecheck (the time model's check; public, as timefig's API takes its reports)
//	9  timefig (the time model's figures, for notebooks and the site)
//	10 the app-level tools: internal/nbtest, internal/labtest
//	11 cmd/... and the tools' own commands
//
// A package not named takes the rank of its longest named prefix, so a new
// sub-package lands on its parent's floor; one under no named prefix is an
// error until it is placed. Known is the list of arrows that still point
// the wrong way, each with the reason it is allowed for now; the test fails
// on any other.
package layers

import (
	"fmt"
	"strings"
)

// Module is the module path the ranks are relative to.
const Module = "github.com/warplab/warplab"

// ranks are the floors, by package path relative to Module (a function,
// so that the table cannot be changed from outside).
func ranks() map[string]int {
	return map[string]int{
		"table":              0,
		"sparse":             0,
		"sim/ptx":            0,
		"sim/timing":         0,
		"notebooks/ptxcache": 0,
		"internal/testenv":   0,
		"internal/cusrc":     0,
		"internal/ncu":       0,
		"internal/browser":   0,
		"internal/evidence":  0,
		"internal/stats":     0,

		"sparse/":                   1,
		"sim/internal/":             1,
		"sim":                       2,
		"gpuext":                    3,
		"internal/launchrec":        3, // reads launchbench's records into a sim.HostFloor, for lab
		"plots/chart":               4,
		"internal/ptxcheck":         4,
		"internal/launchbench":      4,
		"plots":                     5,
		"lab":                       4, // below lessons/lesson: a lesson's command takes lab.Options
		"lessons/lesson":            5,
		"lessons/lesson/lessontest": 6, // a test harness over the contract
		"lessons/":                  6,
		"lessons/all":               7, // the one list of every lesson's descriptor
		"internal/sweep":            7,
		"timecheck":                 8,
		"timefig":                   9, // draws timecheck's reports; the notebooks' public door to them
		"internal/nbtest":           10,
		"internal/labtest":          10,
		"internal/layers":           10,
		"internal/evidence/cmd/":    11,
		"internal/nbtest/cmd/":      11,
		"cmd/":                      11,
	}
}

// Rank is the floor of pkg (a path relative to Module), and false when no
// entry covers it.
func Rank(pkg string) (int, bool) {
	table := ranks()
	if r, ok := table[pkg]; ok {
		return r, true
	}
	best, rank := "", 0
	for p, r := range table {
		if !strings.HasSuffix(p, "/") && !strings.HasPrefix(pkg, p+"/") {
			continue
		}
		if strings.HasSuffix(p, "/") && !strings.HasPrefix(pkg, p) {
			continue
		}
		if len(p) > len(best) {
			best, rank = p, r
		}
	}
	return rank, best != ""
}

// Known are the arrows that still point up, "from -> to", with why each
// stays for now. Remove an entry with the arrow.
func Known() map[string]string {
	return map[string]string{}
}

// KnownAPI are the packages whose exported API still names a type of an
// internal package, with why.
func KnownAPI() map[string]string {
	return map[string]string{}
}

// Check returns the violations among imports, a map from each package
// (relative to Module) to the module packages it imports.
func Check(imports map[string][]string) []string {
	known := Known()
	var bad []string
	for from, tos := range imports {
		rf, ok := Rank(from)
		if !ok {
			bad = append(bad, from+": no rank; place it in internal/layers' table")
			continue
		}
		for _, to := range tos {
			rt, ok := Rank(to)
			if !ok {
				bad = append(bad, to+": no rank; place it in internal/layers' table")
				continue
			}
			if rt < rf {
				continue
			}
			if _, ok := known[from+" -> "+to]; ok {
				continue
			}
			bad = append(bad, fmt.Sprintf("%s (rank %d) imports %s (rank %d)", from, rf, to, rt))
		}
	}
	return bad
}
