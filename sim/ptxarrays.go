package sim

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/warplab/warplab/sim/ptx"
)

// Which array a memory site reads or writes. A line such as SAXPY's
// y[i] = a*x[i] + y[i] has two loads; their PTX text differs only in
// registers, so the site tables name each by the kernel parameter its
// address derives from (ptx.AccessParams: through cvta, add, mad, shl and
// mul.wide to one ld.param), spelled as the .cu source names the parameter
// when the kernel's source is known (SetSource) and as the PTX does
// otherwise ("saxpy_param_2"). A shared-memory access is named by the
// __shared__ array its address was computed from (ptx.AccessSharedVars). SiteStats.Array
// carries the name; "" when the address derives from no parameter or
// several (x[col[j]] still derives from x alone: the index is a 32-bit
// register, where the walk stops).

// nameArrays fills pk.arrays, by site, from the PTX parameter names.
func (pk *PTXKernel) nameArrays() {
	params := ptx.AccessParams(pk.k)
	vars := ptx.AccessSharedVars(pk.k)
	pk.siteParam = make([]int, pk.nsites)
	for s := range pk.siteParam {
		pk.siteParam[s] = -1
	}
	pk.arrays = make([]string, pk.nsites)
	for i := range pk.code {
		x := &pk.code[i]
		if x.site < 0 {
			continue
		}
		in := &pk.k.Instrs[i]
		if p := params[i]; p >= 0 {
			pk.siteParamAt(x.site, p)
			pk.arrays[x.site] = pk.k.Params[p].Name
		}
		if v := vars[i]; v >= 0 {
			site := x.site
			if in.Op == ptx.OpCpAsync {
				site++ // cp.async's second site is its shared-memory side
			}
			if int(site) < len(pk.arrays) {
				pk.arrays[site] = localName(pk.k.Vars[v].Name)
			}
		}
	}
}

// siteParamAt records site's parameter (no-op for site < 0).
func (pk *PTXKernel) siteParamAt(site int32, p int) {
	if site >= 0 && int(site) < len(pk.siteParam) {
		pk.siteParam[site] = p
	}
}

// renameArrays names the sites' parameters as the kernel's signature in
// cuda names them, when it can be found (cuParams).
func (pk *PTXKernel) renameArrays(cuda string) {
	names := cuParams(cuda, pk.Name)
	if len(names) != len(pk.k.Params) {
		return // not this kernel's signature, or one nvcc split (a struct by value)
	}
	for s, p := range pk.siteParam {
		if p >= 0 {
			pk.arrays[s] = names[p]
		}
	}
}

// localName is the name a __shared__ variable has in its function: nvcc
// names a function's static variable by the Itanium rule
// ("_ZZ6tile16E2sa": sa of tile16), which is read back; other names are
// returned as they are.
func localName(name string) string {
	if !strings.HasPrefix(name, "_ZZ") {
		return name
	}
	i := strings.LastIndex(name, "E")
	if i < 0 {
		return name
	}
	rest := name[i+1:]
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	l, err := strconv.Atoi(rest[:n])
	if err != nil || n+l != len(rest) {
		return name
	}
	return rest[n:]
}

// mangledName reads the identifier of an Itanium-mangled name
// ("_Z5saxpyifPKfPf" -> "saxpy"); other names are returned as they are.
func mangledName(name string) string {
	if !strings.HasPrefix(name, "_Z") {
		return name
	}
	rest := strings.TrimPrefix(name[2:], "N") // a namespace: its first component
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	l, err := strconv.Atoi(rest[:n])
	if err != nil || n+l > len(rest) {
		return name
	}
	return rest[n : n+l]
}

// cuParamName is the last identifier of a declaration, before any array
// bounds ("const float *__restrict__ x" -> "x").
var cuParamName = regexp.MustCompile(`([A-Za-z_]\w*)\s*(\[[^\]]*\]\s*)*$`)

// cuParams is the parameter names of __global__ function kernel in cuda,
// in order; nil when the source has no such definition. It reads the text
// as written (no preprocessor): the kernel's name, followed by "(", in a
// declaration that says __global__.
func cuParams(cuda, kernel string) []string {
	name := mangledName(kernel)
	re, err := regexp.Compile(`__global__[^;{}]*?\b` + regexp.QuoteMeta(name) + `\s*\(`)
	if err != nil {
		return nil
	}
	loc := re.FindStringIndex(cuda)
	if loc == nil {
		return nil
	}
	depth, start := 0, loc[1]
	var names []string
	for i := start; i < len(cuda); i++ {
		switch cuda[i] {
		case '(', '<', '[':
			depth++
		case '>', ']':
			depth--
		case ')':
			if depth > 0 {
				depth--
				continue
			}
			fallthrough
		case ',':
			if depth > 0 {
				continue
			}
			decl := strings.TrimSpace(cuda[start:i])
			if decl != "" && decl != "void" {
				// A default argument is not allowed on a kernel, but a
				// comment may stand in the list: drop // and /* */ text.
				decl = stripComments(decl)
				m := cuParamName.FindStringSubmatch(decl)
				if m == nil {
					return nil
				}
				names = append(names, m[1])
			}
			if cuda[i] == ')' {
				return names
			}
			start = i + 1
		}
	}
	return nil
}

// stripComments drops C comments from a declaration.
func stripComments(s string) string {
	for {
		i := strings.Index(s, "/*")
		if i < 0 {
			break
		}
		j := strings.Index(s[i:], "*/")
		if j < 0 {
			s = s[:i]
			break
		}
		s = s[:i] + s[i+j+2:]
	}
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if i := strings.Index(l, "//"); i >= 0 {
			l = l[:i]
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, " "))
}
